import { afterEach, describe, expect, it } from 'vitest';
import { subjectIdsOf } from '../helpers/data-key.js';
import {
  freePort,
  makeTempStore,
  provision,
  serverEnv,
  startServer,
  type TempStore,
  withStore,
} from '../helpers/process.js';
import { stores } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';

// The two stores' suites run at the same time, each on its own store and server.
describe.concurrent.each(stores)('on $name', (testStore) => {
  describe.sequential('durability of answered decisions', () => {
    let store: TempStore | undefined;

    afterEach(async () => {
      // Kills this store's children that are still running, then removes the store.
      await store?.remove();
      store = undefined;
    });

    it(
      'when serve is SIGKILLed during a stream of decisions, every decision answered 201 is in the store after a restart',
      async () => {
        store = await makeTempStore(testStore);
        const firstPort = await freePort();
        const p = await provision(serverEnv(store, firstPort, 'warn'));
        const first = await startServer({ store, port: firstPort });

        // customer -> decision_id of each decision answered 201
        const recorded = new Map<string, string>();
        const killAfter = 150;
        const workers = 20;
        const maxRequestsPerWorker = 100;
        let killed = false;
        let next = 0;
        const failuresBeforeKill: string[] = [];
        const worker = async () => {
          for (let i = 0; i < maxRequestsPerWorker && !killed; i += 1) {
            next += 1;
            const customer = `durable-${next}`;
            try {
              const response = await fetch(
                `${first.baseUrl}/api/v1/customers/${customer}/consents/decisions`,
                {
                  method: 'POST',
                  headers: {
                    'x-system-api-key': p.apiKey.key,
                    'content-type': 'application/json',
                  },
                  body: JSON.stringify({ consent_version_id: p.versionId, decision: 'given' }),
                  signal: AbortSignal.timeout(budget(10_000)),
                },
              );
              const body = (await response.json()) as { data?: { decision_id?: string } };
              if (response.status === 201 && typeof body.data?.decision_id === 'string') {
                recorded.set(customer, body.data.decision_id);
              } else if (!killed) {
                failuresBeforeKill.push(`${response.status} ${JSON.stringify(body)}`);
              }
            } catch (error) {
              if (!killed) failuresBeforeKill.push(String((error as Error).cause ?? error));
              return;
            }
            if (!killed && recorded.size >= killAfter) {
              killed = true;
              first.signal('SIGKILL');
            }
          }
        };
        await Promise.all(Array.from({ length: workers }, () => worker()));

        expect(failuresBeforeKill).toEqual([]);
        expect(killed, 'the stream ended before the kill').toBe(true);
        expect(await first.waitForExit(budget(5_000))).toEqual({ code: null, signal: 'SIGKILL' });
        expect(recorded.size).toBeGreaterThanOrEqual(killAfter);

        // Restart on the same store; every customer with an answered decision is accepted.
        const second = await startServer({ store });
        const customers = [...recorded.keys()];
        const notAccepted: string[] = [];
        let cursor = 0;
        const checker = async () => {
          for (let i = 0; i < customers.length && cursor < customers.length; i += 1) {
            const customer = customers[cursor];
            cursor += 1;
            if (customer === undefined) return;
            const response = await fetch(
              `${second.baseUrl}/api/v1/customers/${customer}/consents/templates/${p.templateCode}/pending`,
              {
                headers: { 'x-system-api-key': p.apiKey.key },
                signal: AbortSignal.timeout(budget(10_000)),
              },
            );
            const body = (await response.json()) as {
              data?: { accepted?: boolean; decision?: string };
            };
            if (response.status !== 200 || body.data?.accepted !== true) {
              notAccepted.push(`${customer}: ${response.status} ${JSON.stringify(body)}`);
            }
          }
        };
        await Promise.all(Array.from({ length: workers }, () => checker()));
        expect(notAccepted).toEqual([]);

        await second.stop(budget(10_000));
        expect(second.exit).toEqual({ code: 0, signal: null });

        const { decisions, states, subjectOf } = await withStore(store, async (db) => ({
          decisions: await db
            .selectFrom('decisions')
            .select(['id', 'subject_id', 'template_id', 'seq'])
            .execute(),
          states: await db
            .selectFrom('customer_template_states')
            .select(['subject_id', 'template_id', 'last_decision_id', 'decision_count'])
            .execute(),
          subjectOf: await subjectIdsOf(db, p.alias, recorded.keys()),
        }));
        const stored = new Set(decisions.map((row) => row.id));
        const lost = [...recorded.values()].filter((id) => !stored.has(id));
        expect(lost, 'decisions answered 201 but missing after the crash').toEqual([]);

        // The per-customer state agrees with the decisions: the latest (highest seq) is the last,
        // and the count is the number of decisions. The store knows customers by subject id.
        const historyOf = (subject: string, template: string) =>
          decisions.filter((row) => row.subject_id === subject && row.template_id === template);
        const customersWithDecisions = new Set(
          decisions.map((row) => `${row.subject_id} ${row.template_id}`),
        );
        expect(states.length).toBe(customersWithDecisions.size);
        const disagreements: string[] = [];
        for (const state of states) {
          const history = historyOf(state.subject_id, state.template_id);
          const latest = history.reduce<(typeof history)[number] | undefined>(
            (top, row) => (top === undefined || row.seq > top.seq ? row : top),
            undefined,
          );
          if (latest?.id !== state.last_decision_id || history.length !== state.decision_count) {
            disagreements.push(
              `${state.subject_id}: ${JSON.stringify({ state, latest, count: history.length })}`,
            );
          }
        }
        const stateBySubject = new Map(states.map((row) => [row.subject_id, row]));
        for (const [customer, decisionId] of recorded) {
          const subject = subjectOf.get(customer);
          const state = subject === undefined ? undefined : stateBySubject.get(subject);
          if (state?.last_decision_id !== decisionId) {
            disagreements.push(
              `${customer} (subject ${subject}): answered ${decisionId}, state ${JSON.stringify(state)}`,
            );
          }
        }
        expect(disagreements).toEqual([]);
      },
      budget(45_000),
    );
  });
});
