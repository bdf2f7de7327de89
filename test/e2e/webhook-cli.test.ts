/**
 * `consent-service webhook …` as an operator runs it: one JSON object per command, the secret
 * shown once, clear refusals (exit 1 for the service's, 2 for usage), and a replay that a real
 * `serve` then carries out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CliResult,
  expectJsonObject,
  freePort,
  makeTempStore,
  type Provisioned,
  provision,
  runCli,
  serverEnv,
  showResult,
  startServer,
  type TempStore,
} from '../helpers/process.js';
import { stores } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';
import { eventually, startReceiver, verified } from '../helpers/webhook-receiver.js';

function expectFailure(result: CliResult, code: number, mentions: RegExp): void {
  expect(result.code, showResult(result)).toBe(code);
  expect(result.stdout, showResult(result)).toBe('');
  expect(result.stderr, showResult(result)).toMatch(mentions);
  expect(result.stderr, showResult(result)).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
}

describe.each(stores)('webhook commands on $name', (testStore) => {
  let store: TempStore;
  let env: Record<string, string>;
  let p: Provisioned;
  let port: number;
  const cli = (...args: string[]) => runCli(args, env, { cwd: store.dir });

  beforeAll(async () => {
    store = await makeTempStore(testStore);
    port = await freePort();
    env = {
      ...serverEnv(store, port, 'warn'),
      WEBHOOK_ALLOW_HTTP_LOOPBACK: 'true',
      WEBHOOK_DISPATCH_INTERVAL_MS: '50',
      WEBHOOK_TIMEOUT_MS: String(budget(3_000)),
    };
    p = await provision(env);
  });
  afterAll(async () => {
    await store?.remove();
  });

  it(
    'creates, lists, disables, enables, rotates, replays and deletes, one JSON object each',
    async () => {
      const receiver = await startReceiver();
      try {
        const created = expectJsonObject(
          await cli(
            'webhook',
            'create',
            '--tenant',
            p.alias,
            '--url',
            receiver.url,
            '--events',
            'decision.given,decision.withdraw',
            '--description',
            'CRM sync',
          ),
        );
        expect(created).toMatchObject({
          url: receiver.url,
          events: ['decision.given', 'decision.withdraw'],
          description: 'CRM sync',
          status: 'enabled',
        });
        expect(String(created.secret)).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
        const id = String(created.id);
        const listed = expectJsonObject(await cli('webhook', 'list', '--tenant', p.alias));
        expect(listed.endpoints).toEqual([expect.objectContaining({ id, status: 'enabled' })]);
        // The secret is shown once: never listed.
        expect(JSON.stringify(listed)).not.toContain('whsec_');

        const server = await startServer({ store, port, env });
        try {
          for (const customer of ['c-1', 'c-2', 'c-3']) {
            const response = await fetch(
              `${server.baseUrl}/api/v1/customers/${customer}/consents/decisions`,
              {
                method: 'POST',
                headers: { 'x-system-api-key': p.apiKey.key, 'content-type': 'application/json' },
                body: JSON.stringify({ consent_version_id: p.versionId, decision: 'given' }),
              },
            );
            expect(response.status).toBe(201);
          }
          await eventually(() => receiver.received.length === 3, budget(10_000));
          for (const got of receiver.received) verified(String(created.secret), got);
          const second = Number(receiver.received[1]?.headers['webhook-position']);

          const replayed = expectJsonObject(
            await cli(
              'webhook',
              'replay',
              '--tenant',
              p.alias,
              '--id',
              id,
              '--from',
              String(second),
            ),
          );
          expect(replayed.cursor).toBe(second - 1);
          await eventually(() => receiver.received.length === 5, budget(10_000));
          expect(receiver.received.slice(3).map((got) => got.headers['webhook-id'])).toEqual(
            receiver.received.slice(1, 3).map((got) => got.headers['webhook-id']),
          );
          const deliveries = expectJsonObject(
            await cli('webhook', 'deliveries', '--tenant', p.alias, '--id', id, '--limit', '2'),
          );
          expect(deliveries.deliveries).toEqual([
            expect.objectContaining({ status: 'delivered', response_code: 200 }),
            expect.objectContaining({ status: 'delivered', response_code: 200 }),
          ]);
          expect(deliveries.next).toEqual(expect.any(String));

          const rotated = expectJsonObject(
            await cli('webhook', 'rotate-secret', '--tenant', p.alias, '--id', id),
          );
          expect(String(rotated.secret)).toMatch(/^whsec_/);
          expect(rotated.secret).not.toBe(created.secret);
          const disabled = expectJsonObject(
            await cli('webhook', 'disable', '--tenant', p.alias, '--id', id),
          );
          expect(disabled).toMatchObject({
            status: 'disabled',
            disabled_reason: 'Disabled by hand.',
          });
          const enabled = expectJsonObject(
            await cli('webhook', 'enable', '--tenant', p.alias, '--id', id),
          );
          expect(enabled).toMatchObject({ status: 'enabled', disabled_reason: null });
        } finally {
          await server.stop();
        }
        expect(
          expectJsonObject(await cli('webhook', 'delete', '--tenant', p.alias, '--id', id)),
        ).toEqual({
          id,
          deleted: true,
        });
        expect(
          expectJsonObject(await cli('webhook', 'list', '--tenant', p.alias)).endpoints,
        ).toEqual([]);
      } finally {
        await receiver.close();
      }
    },
    budget(90_000),
  );

  it(
    'refuses bad input with a clear message',
    async () => {
      const create = (url: string, events: string) =>
        cli('webhook', 'create', '--tenant', p.alias, '--url', url, '--events', events);
      expectFailure(
        await create('http://10.0.0.1/hook', 'decision.given'),
        1,
        /1001[\s\S]*url: is not allowed: http:\/\/ may only reach a loopback address \(10\.0\.0\.1 is private\)/,
      );
      // Without the development setting, http:// even to loopback is refused, naming the setting.
      const { WEBHOOK_ALLOW_HTTP_LOOPBACK: _allowed, ...strict } = env;
      expectFailure(
        await runCli(
          [
            'webhook',
            'create',
            '--tenant',
            p.alias,
            '--url',
            'http://127.0.0.1:8080/hook',
            '--events',
            'decision.given',
          ],
          strict,
          { cwd: store.dir },
        ),
        1,
        /url: must be https:\/\/ \(http:\/\/ to a loopback address only with WEBHOOK_ALLOW_HTTP_LOOPBACK=true\)/,
      );
      expectFailure(
        await create('https://169.254.169.254/', 'decision.given'),
        1,
        /url: is not allowed: 169\.254\.169\.254 is a linkLocal address/,
      );
      expectFailure(
        await create('https://[::ffff:127.0.0.1]/', 'decision.given'),
        1,
        /url: is not allowed: .*loopback/,
      );
      expectFailure(
        await create('https://hooks.example.com/', 'decision.maybe'),
        1,
        /events: decision\.maybe is not one of/,
      );
      expectFailure(
        await cli('webhook', 'create', '--tenant', p.alias, '--events', 'decision.given'),
        2,
        /Missing --url/,
      );
      expectFailure(
        await cli('webhook', 'replay', '--tenant', p.alias, '--id', 'x', '--from', 'soon'),
        2,
        /--from must be a whole number, 1 or more/,
      );
      expectFailure(
        await cli(
          'webhook',
          'disable',
          '--tenant',
          p.alias,
          '--id',
          '00000000-0000-7000-8000-000000000000',
        ),
        1,
        /1004.*Webhook endpoint not found/,
      );
    },
    budget(60_000),
  );
});
