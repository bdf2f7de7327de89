/**
 * The `channel create` and `channel list` commands of the real command line, on both stores: a
 * channel of the tenant's own made and listed after the five, each creation audited as the
 * command line, and the refusals said on stderr.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type CliResult,
  expectJsonObject,
  killAllChildren,
  makeTempStore,
  runCli,
  showResult,
  type TempStore,
  withStore,
} from '../helpers/process.js';
import { stores } from '../helpers/stores.js';
import { testPasswordHashCost } from '../helpers/time.js';

function expectFailure(result: CliResult, mentions: RegExp): void {
  expect(result.code, showResult(result)).not.toBe(0);
  expect(result.stdout, showResult(result)).toBe('');
  expect(result.stderr, showResult(result)).toMatch(mentions);
}

describe.each(stores)('channel commands on $name', (testStore) => {
  let store: TempStore;
  let env: Record<string, string>;
  const cli = (...args: string[]) => runCli(args, env, { cwd: store.dir });

  beforeAll(async () => {
    store = await makeTempStore(testStore);
    env = {
      DATABASE_URL: store.databaseUrl,
      PUBLIC_BASE_URL: 'http://127.0.0.1:3999',
      LOG_LEVEL: 'warn',
      PASSWORD_HASH_COST: String(testPasswordHashCost),
    };
    expectJsonObject(
      await cli(
        'tenant',
        'create',
        '--alias',
        'acme',
        '--email',
        'compliance@acme.example',
        '--password',
        'a long enough password',
      ),
    );
  });
  afterEach(async () => {
    await killAllChildren(store);
  });
  afterAll(async () => {
    await store?.remove();
  });

  it('channel create prints the channel; channel list gives the five, then the own by code', async () => {
    const made = expectJsonObject(
      await cli(
        'channel',
        'create',
        '--tenant',
        'acme',
        '--code',
        'whatsapp',
        '--name',
        'WhatsApp',
      ),
    );
    expect(made).toEqual({
      code: 'whatsapp',
      name: 'WhatsApp',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expectJsonObject(
      await cli('channel', 'create', '--tenant', 'acme', '--code', 'line', '--name', 'LINE'),
    );
    const listed = expectJsonObject(await cli('channel', 'list', '--tenant', 'acme'));
    expect(
      (listed.channels as Array<Record<string, unknown>>).map((c) => [c.code, c.name, c.built_in]),
    ).toEqual([
      ['email', 'Email', true],
      ['sms', 'SMS', true],
      ['push', 'Push', true],
      ['phone', 'Phone', true],
      ['post', 'Post', true],
      ['line', 'LINE', false],
      ['whatsapp', 'WhatsApp', false],
    ]);
    const audited = await withStore(store, (db) =>
      db
        .selectFrom('audit_log')
        .select(['action', 'target', 'actor'])
        .where('action', 'like', 'channel.%')
        .orderBy('created_at')
        .orderBy('id')
        .execute(),
    );
    expect(audited).toEqual([
      { action: 'channel.created', target: 'whatsapp', actor: 'command line' },
      { action: 'channel.created', target: 'line', actor: 'command line' },
    ]);
  });

  it('channel create refuses one of the five, a code that is not a lowercase slug, and a code taken', async () => {
    expectFailure(
      await cli('channel', 'create', '--tenant', 'acme', '--code', 'sms', '--name', 'Text'),
      /code: "sms" is a channel every tenant has/,
    );
    expectFailure(
      await cli('channel', 'create', '--tenant', 'acme', '--code', 'Fax_1', '--name', 'Fax'),
      /code/,
    );
    expectFailure(
      await cli('channel', 'create', '--tenant', 'acme', '--code', 'line', '--name', 'Again'),
      /A channel with code "line" already exists/,
    );
    expectFailure(await cli('channel', 'create', '--tenant', 'acme', '--code', 'fax'), /--name/);
  });
});
