import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import {
  freePort,
  killAllChildren,
  makeTempStore,
  provision,
  serverEnv,
  startServer,
  type TempStore,
} from '../helpers/process.js';

interface StateRow {
  customer_id: string;
  last_decision_id: string;
  decision_count: number;
}

describe('durability of answered decisions', () => {
  let store: TempStore | undefined;

  afterEach(async () => {
    await killAllChildren();
    store?.remove();
  });

  it('when serve is SIGKILLed during a stream of decisions, every decision answered 201 is in the store after a restart', async () => {
    store = makeTempStore();
    const dbPath = store.dbPath;
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
              signal: AbortSignal.timeout(10_000),
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
    expect(await first.waitForExit(5_000)).toEqual({ code: null, signal: 'SIGKILL' });
    expect(recorded.size).toBeGreaterThanOrEqual(killAfter);

    // Restart on the same file; every customer with an answered decision is accepted.
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
            signal: AbortSignal.timeout(10_000),
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

    await second.stop(10_000);
    expect(second.exit).toEqual({ code: 0, signal: null });

    const db = new Database(dbPath, { readonly: true, fileMustExist: true });
    try {
      const stored = new Set(
        (db.prepare('select id from decisions').all() as Array<{ id: string }>).map((r) => r.id),
      );
      const lost = [...recorded.values()].filter((id) => !stored.has(id));
      expect(lost, 'decisions answered 201 but missing after the crash').toEqual([]);

      // The per-customer state agrees with the decisions: the latest (highest seq) is the last.
      const latestByCustomer = new Map(
        (
          db
            .prepare(
              `select d.customer_id, d.id, d.seq, c.n from decisions d
               join (select tenant_id, customer_id, template_id, max(seq) as top, count(*) as n
                     from decisions group by tenant_id, customer_id, template_id) c
                 on c.tenant_id = d.tenant_id and c.customer_id = d.customer_id
                and c.template_id = d.template_id and c.top = d.seq`,
            )
            .all() as Array<{ customer_id: string; id: string; seq: number; n: number }>
        ).map((row) => [row.customer_id, row]),
      );
      const states = db
        .prepare(
          'select customer_id, last_decision_id, decision_count from customer_template_states',
        )
        .all() as StateRow[];
      const stateByCustomer = new Map(states.map((row) => [row.customer_id, row]));
      expect(states.length).toBe(latestByCustomer.size);
      const disagreements: string[] = [];
      for (const state of states) {
        const latest = latestByCustomer.get(state.customer_id);
        if (latest?.id !== state.last_decision_id || latest.n !== state.decision_count) {
          disagreements.push(`${state.customer_id}: ${JSON.stringify({ state, latest })}`);
        }
      }
      for (const [customer, decisionId] of recorded) {
        const state = stateByCustomer.get(customer);
        if (state?.last_decision_id !== decisionId) {
          disagreements.push(`${customer}: answered ${decisionId}, state ${JSON.stringify(state)}`);
        }
      }
      expect(disagreements).toEqual([]);
    } finally {
      db.close();
    }
  }, 45_000);
});
