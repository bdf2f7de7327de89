/**
 * The crash test (contract section 5: "a decision answered with 2xx is durable"). A real `serve`
 * takes a stream of given / reject / withdraw decisions from 20 concurrent clients over a pool of
 * customers, on two published versions that allow re-consent, and is SIGKILLed at a random moment
 * (seeded, so a run can be replayed), several times; each time `serve` is started again on the
 * same store and the stream goes on. At the end, after a clean stop, the store is read directly:
 * every decision answered 2xx is there, unchanged (its sealed customer id included), and the
 * per-customer states agree with the decision record. Requests that were cut off by a kill (no
 * answer) may or may not be stored.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { sealedCustomersOf, subjectIdsOf } from '../helpers/data-key.js';
import {
  expectJsonObject,
  freePort,
  makeTempStore,
  type Provisioned,
  provision,
  runCli,
  type ServerProcess,
  serverEnv,
  showResult,
  startServer,
  type TempStore,
  withStore,
} from '../helpers/process.js';
import { stores } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';

/** The fixed seed of the kill moments (after a round's first answer) and the stream's choices. */
const seed = 0x0c0ffee;
const kills = 4;
const workers = 20;
const customers = Array.from({ length: 30 }, (_, i) => `crash-${i + 1}`);
/** Per worker and round: an upper bound on requests, whatever the timing. */
const maxRequestsPerWorker = 400;

/** mulberry32: a small seeded generator, so the kill moments are the same on every run. */
function seededRandom(start: number): () => number {
  let state = start >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

interface Answered {
  decisionId: string;
  customer: string;
  decision: string;
  versionId: string;
  round: number;
}

interface StoredDecision {
  id: string;
  tenant_id: string;
  /** The customer's random id: the customer id itself is sealed in `personal`. */
  subject_id: string;
  personal: string;
  template_id: string;
  consent_version_id: string;
  decision: string;
  seq: number;
}

/** The highest-seq row of a non-empty list. */
function latestOf(rows: StoredDecision[]): StoredDecision | undefined {
  return rows.reduce<StoredDecision | undefined>(
    (top, row) => (top === undefined || Number(row.seq) > Number(top.seq) ? row : top),
    undefined,
  );
}

function groupBy<T>(rows: T[], key: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const k = key(row);
    const group = groups.get(k);
    if (group) group.push(row);
    else groups.set(k, [row]);
  }
  return groups;
}

// The two stores' suites run at the same time, each on its own store and servers.
describe.concurrent.each(stores)('on $name', (testStore) => {
  describe.sequential('crash test', () => {
    let store: TempStore | undefined;

    afterEach(async () => {
      // Kills this store's children that are still running, then removes the store.
      await store?.remove();
      store = undefined;
    });

    it(
      `when serve is SIGKILLed ${kills} times at random moments (seed ${seed}) under a stream of given, reject and withdraw decisions, every answered decision is stored and the customers' states agree with the decisions`,
      async () => {
        store = await makeTempStore(testStore);
        // Two generators: the kill moments stay the same whatever the stream's timing draws.
        const killRandom = seededRandom(seed);
        const random = seededRandom(seed ^ 0x9e3779b9);
        const firstPort = await freePort();
        const env = serverEnv(store, firstPort, 'warn');
        const p: Provisioned = await provision(env);
        // A second version of the same template, so that customers' states span two versions.
        const second = expectJsonObject(
          await runCli(
            [
              'version',
              'publish',
              '--tenant',
              p.alias,
              '--template',
              p.templateCode,
              '--tag',
              '2.0',
              '--content',
              '<p>Second text</p>',
              '--allow-reconsent',
              'true',
            ],
            env,
          ),
        );
        expect(p.version.allow_reconsent).toBe(true);
        expect(second.allow_reconsent).toBe(true);
        const versionIds = [p.versionId, String(second.consent_version_id)];

        const answered: Answered[] = [];
        const unexpected: string[] = [];
        const killDelays: number[] = [];
        /** Per round: requests in flight at the kill, which got no answer. */
        const cutOffByRound = new Map<number, number>();

        /**
         * Sends decisions from `workers` clients until `stop()` says so (or each has sent its
         * bound), calling `onAnswered` at each decision answered 201. An answer other than 201 or
         * 409 1005 is unexpected; so is a network error before the kill.
         */
        const stream = async (
          server: ServerProcess,
          round: number,
          stop: () => boolean,
          killed: () => boolean,
          onAnswered: () => void = () => {},
        ) => {
          const worker = async () => {
            for (let i = 0; i < maxRequestsPerWorker && !stop(); i += 1) {
              const customer = customers[Math.floor(random() * customers.length)]!;
              const roll = random();
              const decision = roll < 0.5 ? 'given' : roll < 0.75 ? 'reject' : 'withdraw';
              const versionId = versionIds[Math.floor(random() * versionIds.length)]!;
              let status: number;
              let body: { data?: { decision_id?: string; customer_id?: string }; code?: string };
              try {
                const response = await fetch(
                  `${server.baseUrl}/api/v1/customers/${customer}/consents/decisions`,
                  {
                    method: 'POST',
                    headers: {
                      'x-system-api-key': p.apiKey.key,
                      'content-type': 'application/json',
                    },
                    body: JSON.stringify({ consent_version_id: versionId, decision }),
                    signal: AbortSignal.timeout(budget(10_000)),
                  },
                );
                status = response.status;
                body = (await response.json()) as typeof body;
              } catch (error) {
                // Cut off by the kill: may or may not be stored.
                if (killed()) cutOffByRound.set(round, (cutOffByRound.get(round) ?? 0) + 1);
                else unexpected.push(`round ${round}: ${String((error as Error).cause ?? error)}`);
                return;
              }
              if (status === 201 && typeof body.data?.decision_id === 'string') {
                answered.push({
                  decisionId: body.data.decision_id,
                  customer,
                  decision,
                  versionId,
                  round,
                });
                onAnswered();
              } else if (!(status === 409 && body.code === '1005' && decision === 'withdraw')) {
                unexpected.push(`round ${round}: ${decision} -> ${status} ${JSON.stringify(body)}`);
              }
            }
          };
          await Promise.all(Array.from({ length: workers }, () => worker()));
        };

        /**
         * A fresh server opens its store connections on first use: concurrent reads open them, so
         * that the stream meets a warm server.
         */
        const warmUp = async (server: ServerProcess) => {
          await Promise.all(
            Array.from({ length: workers }, async () => {
              const response = await fetch(
                `${server.baseUrl}/api/v1/customers/warm-up/consents/templates/${p.templateCode}/pending`,
                {
                  headers: { 'x-system-api-key': p.apiKey.key },
                  signal: AbortSignal.timeout(budget(10_000)),
                },
              );
              await response.arrayBuffer();
              expect(response.status).toBe(200);
            }),
          );
        };

        const answeredByRound: number[] = [];
        // The decision log appends every 20 ms, so kills also land in the middle of appends.
        const logEnv = { LOG_INTEGRATE_INTERVAL_MS: '20' };
        let server = await startServer({ store, port: firstPort, env: logEnv });
        for (let round = 1; round <= kills; round += 1) {
          await warmUp(server);
          const answeredBefore = answered.length;
          const delay = 100 + Math.floor(killRandom() * 501);
          killDelays.push(delay);
          let killed = false;
          const current = server;
          // The kill's moment counts from the round's first answered decision, so that it lands
          // in a flowing stream however slowly the machine gets the stream going.
          let timer: NodeJS.Timeout | undefined;
          const armKill = () => {
            timer ??= setTimeout(() => {
              killed = true;
              current.signal('SIGKILL');
            }, delay);
          };
          try {
            await stream(
              current,
              round,
              () => killed,
              () => killed,
              armKill,
            );
          } finally {
            clearTimeout(timer);
          }
          expect(killed, `round ${round}: the stream ended before the kill`).toBe(true);
          expect(await current.waitForExit(budget(5_000)), current.describe()).toEqual({
            code: null,
            signal: 'SIGKILL',
          });
          // The stream was flowing when the kill came: answers, or requests cut off by it (with
          // SQLite's group commit a whole wave may be answered just before the kill).
          const answeredInRound = answered.length - answeredBefore;
          expect(
            answeredInRound + (cutOffByRound.get(round) ?? 0),
            `round ${round}: nothing answered or in flight at the kill after ${delay} ms`,
          ).toBeGreaterThan(0);
          answeredByRound.push(answeredInRound);
          server = await startServer({ store, env: logEnv });
        }

        // After the last restart: a bounded stream with no kill, then a clean stop.
        await warmUp(server);
        let sent = 0;
        await stream(
          server,
          kills + 1,
          () => {
            sent += 1;
            return sent > workers * 10;
          },
          () => false,
        );
        await server.stop(budget(10_000));
        expect(server.exit, server.describe()).toEqual({ code: 0, signal: null });
        expect(unexpected, `seed ${seed}, kill delays ${killDelays.join(', ')} ms`).toEqual([]);

        const { decisions, templateStates, versionStates, subjectOf, sealedCustomerOf } =
          await withStore(store, async (db) => {
            const decisions: StoredDecision[] = await db
              .selectFrom('decisions')
              .select([
                'id',
                'tenant_id',
                'subject_id',
                'personal',
                'template_id',
                'consent_version_id',
                'decision',
                'seq',
              ])
              .execute();
            return {
              decisions,
              templateStates: await db.selectFrom('customer_template_states').selectAll().execute(),
              versionStates: await db.selectFrom('customer_version_states').selectAll().execute(),
              subjectOf: await subjectIdsOf(db, p.alias, customers),
              sealedCustomerOf: await sealedCustomersOf(db, p.alias, decisions),
            };
          });
        const cutOff = [...cutOffByRound.values()].reduce((sum, n) => sum + n, 0);
        const context = `seed ${seed}, kill delays ${killDelays.join(', ')} ms, answered by round ${answeredByRound.join(', ')}, ${answered.length} answered in all, cut off by round ${[...cutOffByRound].map(([r, n]) => `${r}:${n}`).join(' ')}, ${decisions.length} stored`;
        // Decisions were answered before the kills, not only after the last restart.
        expect(answeredByRound.filter((n) => n > 0).length, context).toBeGreaterThanOrEqual(2);

        // Every answered decision is stored as it was answered: under the customer's subject, with
        // the customer's id sealed in it.
        const byId = new Map(decisions.map((row) => [row.id, row]));
        const lostOrChanged: string[] = [];
        for (const a of answered) {
          const row = byId.get(a.decisionId);
          if (
            row === undefined ||
            row.subject_id !== subjectOf.get(a.customer) ||
            sealedCustomerOf.get(row.id) !== a.customer ||
            row.decision !== a.decision ||
            row.consent_version_id !== a.versionId
          ) {
            lostOrChanged.push(
              `${JSON.stringify(a)} (subject ${subjectOf.get(a.customer)}) stored as ${JSON.stringify(row)}, sealed customer ${row && sealedCustomerOf.get(row.id)}`,
            );
          }
        }
        expect(lostOrChanged, context).toEqual([]);
        // Every stored decision, the cut-off ones too, opens to a customer of the stream, the one
        // whose subject it is stored under.
        const customerOfSubject = new Map([...subjectOf].map(([customer, id]) => [id, customer]));
        const misfiled = decisions.filter(
          (row) =>
            customerOfSubject.get(row.subject_id) === undefined ||
            sealedCustomerOf.get(row.id) !== customerOfSubject.get(row.subject_id),
        );
        expect(
          misfiled.map((row) => `${row.id}: ${sealedCustomerOf.get(row.id)} ${row.subject_id}`),
          context,
        ).toEqual([]);
        // Nothing is stored that no request asked for (the cut-off ones are the only extras).
        expect(decisions.length - answered.length, context).toBeLessThanOrEqual(cutOff);
        expect(decisions.length, context).toBeGreaterThanOrEqual(answered.length);

        // customer_template_states: one row per customer (subject) and template, agreeing with the
        // history.
        const histories = groupBy(decisions, (row) => `${row.subject_id} ${row.template_id}`);
        const disagreements: string[] = [];
        expect(templateStates.length, context).toBe(histories.size);
        const templateStateOf = new Map(
          templateStates.map((s) => [`${s.subject_id} ${s.template_id}`, s]),
        );
        for (const [key, history] of histories) {
          const sorted = [...history].sort((a, b) => Number(a.seq) - Number(b.seq));
          const seqs = sorted.map((row) => Number(row.seq));
          if (seqs.some((seq, i) => seq !== i + 1)) {
            disagreements.push(`${key}: seq ${seqs.join(',')} is not 1..${seqs.length}`);
          }
          // The rules held at every step: each withdraw follows a given (section 5).
          sorted.forEach((row, i) => {
            if (row.decision === 'withdraw' && sorted[i - 1]?.decision !== 'given') {
              disagreements.push(
                `${key}: withdraw at seq ${row.seq} after ${sorted[i - 1]?.decision ?? 'nothing'}`,
              );
            }
          });
          const latest = latestOf(history)!;
          const state = templateStateOf.get(key);
          if (
            state === undefined ||
            Number(state.decision_count) !== history.length ||
            state.last_decision_id !== latest.id ||
            state.last_decision !== latest.decision ||
            state.last_consent_version_id !== latest.consent_version_id
          ) {
            disagreements.push(
              `${key}: template state ${JSON.stringify(state)}, ${history.length} decisions, latest ${JSON.stringify(latest)}`,
            );
          }
        }

        // customer_version_states: one row per customer (subject) and version, naming that pair's
        // latest.
        const pairs = groupBy(decisions, (row) => `${row.subject_id} ${row.consent_version_id}`);
        expect(versionStates.length, context).toBe(pairs.size);
        const versionStateOf = new Map(
          versionStates.map((s) => [`${s.subject_id} ${s.consent_version_id}`, s]),
        );
        for (const [key, rows] of pairs) {
          const latest = latestOf(rows)!;
          const state = versionStateOf.get(key);
          if (state?.last_decision_id !== latest.id || state.last_decision !== latest.decision) {
            disagreements.push(
              `${key}: version state ${JSON.stringify(state)}, latest ${JSON.stringify(latest)}`,
            );
          }
        }
        expect(disagreements, context).toEqual([]);

        // The decision log: every stored decision is in it exactly once or still queued, the
        // entries run 0..n-1 with no gap, and the audit recomputes it clean.
        const log = await withStore(store, async (db) => ({
          entries: await db
            .selectFrom('tlog_entries')
            .select(['idx', 'record_id'])
            .orderBy('idx')
            .execute(),
          pending: await db.selectFrom('tlog_pending').select('record_id').execute(),
          checkpoints: await db.selectFrom('tlog_checkpoints').select('size').execute(),
          publications: await db.selectFrom('publications').select('id').execute(),
        }));
        expect(
          log.entries.map((e) => Number(e.idx)),
          context,
        ).toEqual(log.entries.map((_, i) => i));
        const logged = [...log.entries, ...log.pending].map((row) => row.record_id);
        expect(logged.length, context).toBe(new Set(logged).size);
        // Besides the decisions, the versions' publications, logged when they were published.
        expect(log.publications.length, context).toBeGreaterThan(0);
        expect(new Set(logged), context).toEqual(
          new Set([...log.publications, ...decisions].map((row) => row.id)),
        );
        expect(log.entries.length, context).toBeGreaterThan(0);
        expect(new Set(log.checkpoints.map((c) => Number(c.size))).size).toBe(
          log.checkpoints.length,
        );
        const audit = await runCli(['audit', '--tenant', p.alias], env);
        expect(audit.code, showResult(audit)).toBe(0);
      },
      budget(60_000),
    );
  });
});
