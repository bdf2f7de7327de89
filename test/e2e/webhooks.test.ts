/**
 * Webhooks through a kill, on each store: a real `serve` is SIGKILLed while the receiver holds
 * a delivery's response open; after a restart, every acknowledged decision's event reaches the
 * receiver (by `webhook-id`, at least once), signed, and no event names a decision the store
 * does not have.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  expectJsonObject,
  freePort,
  makeTempStore,
  provision,
  runCli,
  serverEnv,
  startServer,
  type TempStore,
  withStore,
} from '../helpers/process.js';
import { stores } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';
import { eventually, startReceiver, verified } from '../helpers/webhook-receiver.js';

const decisions = 20;

describe.each(stores)('webhooks on $name through a kill', (testStore) => {
  let store: TempStore | undefined;
  let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;

  afterEach(async () => {
    await receiver?.close();
    await store?.remove();
    store = undefined;
  });

  it(
    'every acknowledged decision reaches the receiver after a restart, and none is invented',
    async () => {
      store = await makeTempStore(testStore);
      const port = await freePort();
      const env = {
        ...serverEnv(store, port, 'warn'),
        WEBHOOK_ALLOW_HTTP_LOOPBACK: 'true',
        WEBHOOK_DISPATCH_INTERVAL_MS: '50',
        WEBHOOK_RETRY_BASE_MS: '50',
        // A delivery to the loopback receiver takes milliseconds; the killed sender's lease
        // (this and 5 s) is what the restarted server waits out, so it is kept short.
        WEBHOOK_TIMEOUT_MS: String(budget(1_000)),
      };
      const p = await provision(env);
      // The first delivery is held open until the server is killed; later ones are answered.
      let holding = true;
      receiver = await startReceiver(() => (holding ? 'hold' : 200));
      const created = expectJsonObject(
        await runCli(
          [
            'webhook',
            'create',
            '--tenant',
            p.alias,
            '--url',
            receiver.url,
            '--events',
            'decision.given',
          ],
          env,
        ),
      );
      const secret = String(created.secret);
      let server = await startServer({ store, port, env });
      const acknowledged: string[] = [];
      for (let i = 0; i < decisions; i++) {
        const response = await fetch(
          `${server.baseUrl}/api/v1/customers/c-${i}/consents/decisions`,
          {
            method: 'POST',
            headers: { 'x-system-api-key': p.apiKey.key, 'content-type': 'application/json' },
            body: JSON.stringify({ consent_version_id: p.versionId, decision: 'given' }),
            signal: AbortSignal.timeout(budget(10_000)),
          },
        );
        expect(response.status).toBe(201);
        acknowledged.push(
          ((await response.json()) as { data: { decision_id: string } }).data.decision_id,
        );
      }
      await eventually(() => receiver?.received.length === 1, budget(10_000));
      server.signal('SIGKILL');
      await server.waitForExit(budget(5_000));
      holding = false;

      server = await startServer({ store, port, env });
      try {
        const seen = () =>
          new Set(
            receiver?.received.map((got) => verified(secret, got).data.decision_id as string),
          );
        await eventually(() => acknowledged.every((id) => seen().has(id)), budget(30_000));
        const stored = await withStore(store, (db) =>
          db.selectFrom('decisions').select('id').execute(),
        );
        const storedIds = new Set(stored.map((row) => row.id));
        for (const id of seen()) expect(storedIds.has(id)).toBe(true);
        // One webhook-id per decision, however many times it was sent.
        const idsByDecision = new Map<string, Set<string>>();
        for (const got of receiver.received) {
          const decision = verified(secret, got).data.decision_id as string;
          const ids = idsByDecision.get(decision) ?? new Set<string>();
          ids.add(String(got.headers['webhook-id']));
          idsByDecision.set(decision, ids);
        }
        for (const ids of idsByDecision.values()) expect(ids.size).toBe(1);
      } finally {
        await server.stop();
      }
      // Provisioning by the command line, twenty decisions, and the killed sender's lease lapsing.
    },
    budget(90_000),
  );
});
