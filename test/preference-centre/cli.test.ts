/**
 * The `preference-centre show` and `preference-centre origins` commands, on both stores: the
 * origins a preference link may return to, set from the command line as the back-office sets
 * them (checked, made canonical, audited as the command line), the other settings kept.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectJsonObject,
  makeTempStore,
  runCli,
  showResult,
  type TempStore,
  withStore,
} from '../helpers/process.js';
import { stores } from '../helpers/stores.js';
import { testPasswordHashCost } from '../helpers/time.js';

describe.each(stores)('preference centre commands on $name', (testStore) => {
  let store: TempStore;
  let env: Record<string, string>;
  const cli = (...args: string[]) => runCli(args, env, { cwd: store.dir });

  beforeAll(async () => {
    store = await makeTempStore(testStore);
    env = { DATABASE_URL: store.databaseUrl, PASSWORD_HASH_COST: String(testPasswordHashCost) };
    expectJsonObject(
      await cli(
        'tenant',
        'create',
        '--alias',
        'acme',
        '--email',
        'privacy@acme.example',
        '--password',
        'a long enough password',
      ),
    );
  });
  afterAll(async () => {
    await store?.remove();
  });

  it('show prints the settings of a tenant that set none: no origin', async () => {
    expect(expectJsonObject(await cli('preference-centre', 'show', '--tenant', 'acme'))).toEqual({
      display_name: null,
      logo_url: null,
      accent_colour: null,
      header_colour: null,
      allowed_origins: [],
      email_key_id: null,
    });
  });

  it('origins sets them, once each, audited as the command line', async () => {
    const set = expectJsonObject(
      await cli(
        'preference-centre',
        'origins',
        '--tenant',
        'acme',
        '--origin',
        'https://shop.acme.example',
        '--origin',
        'https://app.acme.example,https://shop.acme.example',
      ),
    );
    expect(set.allowed_origins).toEqual(['https://shop.acme.example', 'https://app.acme.example']);
    const shown = expectJsonObject(await cli('preference-centre', 'show', '--tenant', 'acme'));
    expect(shown.allowed_origins).toEqual(set.allowed_origins);
    const audit = await withStore(store, (db) =>
      db
        .selectFrom('audit_log')
        .select(['actor', 'details'])
        .where('action', '=', 'preference_centre.changed')
        .execute(),
    );
    expect(audit.map((entry) => entry.actor)).toEqual(['command line']);
    expect(JSON.parse(audit[0]?.details ?? '{}')).toEqual({
      allowedOrigins: {
        from: [],
        to: ['https://shop.acme.example', 'https://app.acme.example'],
      },
    });
  });

  it('a value that is no origin fails naming allowed_origins, and changes nothing', async () => {
    const refused = await cli(
      'preference-centre',
      'origins',
      '--tenant',
      'acme',
      '--origin',
      'shop.acme.example',
    );
    expect(refused.code, showResult(refused)).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(
      'allowed_origins: "shop.acme.example" is not an origin: https://host[:port], or http:// on this machine',
    );
    const shown = expectJsonObject(await cli('preference-centre', 'show', '--tenant', 'acme'));
    expect(shown.allowed_origins).toEqual([
      'https://shop.acme.example',
      'https://app.acme.example',
    ]);
  });

  it('origins with no --origin clears them', async () => {
    const cleared = expectJsonObject(await cli('preference-centre', 'origins', '--tenant', 'acme'));
    expect(cleared.allowed_origins).toEqual([]);
  });
});
