import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCheckpoint, parseVerifierKey } from '../../src/proof/index.js';
import { sealedCustomersOf, subjectIdsOf } from '../helpers/data-key.js';
import {
  delay,
  expectJsonObject,
  freePort,
  makeTempStore,
  type Provisioned,
  pollUntil,
  provision,
  runCli,
  type ServerProcess,
  serverEnv,
  showResult,
  startServer,
  type TempStore,
  withStore,
} from '../helpers/process.js';
import { postgresStore } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';

const isoUtc = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const nothingToWithdraw = { code: '1005', message: 'Nothing to withdraw.' };
const idempotencyMismatch = {
  code: '1010',
  message: 'Idempotency key reused with a different request.',
};

type DecisionValue = 'given' | 'reject' | 'withdraw';

interface Answer {
  instance: 'A' | 'B';
  status: number;
  body: any;
  replayed: string | null;
}

/** A deterministic shuffle (mulberry32), so that a failing burst can be replayed as it was. */
function shuffled<T>(items: T[], seed: number): T[] {
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const result = [...items];
  for (let i = result.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [result[i], result[j]] = [result[j] as T, result[i] as T];
  }
  return result;
}

/** Two different free ports (two calls to freePort may, rarely, answer the same one). */
async function twoPorts(): Promise<[number, number]> {
  const first = await freePort();
  for (let attempt = 0; attempt < 10; attempt += 1) {
    const second = await freePort();
    if (second !== first) return [first, second];
  }
  throw new Error('no second free port');
}

// Many instances on one database is a PostgreSQL deployment: SQLite is one process's file.
describe('two serve processes on one PostgreSQL database', () => {
  let store: TempStore;
  let a: ServerProcess;
  let b: ServerProcess;
  let p: Provisioned;
  /** The environment of the command line (instance A's, as an operator beside it would have). */
  let cliEnv: Record<string, string>;

  beforeAll(async () => {
    store = await makeTempStore(postgresStore);
    const [portA, portB] = await twoPorts();
    // Every instance and the command line hold the same data key.
    cliEnv = serverEnv(store, portA);
    p = await provision(cliEnv);
    // Both append to the decision log every 20 ms: they contend for the same log all the time.
    const env = { LOG_INTEGRATE_INTERVAL_MS: '20' };
    [a, b] = await Promise.all([
      startServer({ store, port: portA, env }),
      startServer({ store, port: portB, env }),
    ]);
  });

  afterAll(async () => {
    // Kills both servers (and any command still running), then drops the database.
    await store?.remove();
  });

  const instanceName = (server: ServerProcess): 'A' | 'B' => (server === a ? 'A' : 'B');

  const get = async (server: ServerProcess, path: string) => {
    const response = await fetch(`${server.baseUrl}${path}`, {
      headers: { 'x-system-api-key': p.apiKey.key },
      signal: AbortSignal.timeout(budget(10_000)),
    });
    return { status: response.status, body: (await response.json()) as any };
  };
  const latestPath = () => `/api/v1/consent-templates/${p.templateCode}/latest`;
  const pendingPath = (customer: string) =>
    `/api/v1/customers/${customer}/consents/templates/${p.templateCode}/pending`;

  const decide = async (
    server: ServerProcess,
    customer: string,
    decision: DecisionValue,
    options: { idempotencyKey?: string } = {},
  ): Promise<Answer> => {
    const headers: Record<string, string> = {
      'x-system-api-key': p.apiKey.key,
      'content-type': 'application/json',
    };
    if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
    const response = await fetch(
      `${server.baseUrl}/api/v1/customers/${customer}/consents/decisions`,
      {
        method: 'POST',
        headers,
        body: JSON.stringify({ consent_version_id: p.versionId, decision }),
        signal: AbortSignal.timeout(budget(15_000)),
      },
    );
    return {
      instance: instanceName(server),
      status: response.status,
      body: await response.json(),
      replayed: response.headers.get('idempotent-replayed'),
    };
  };

  /** D of the contract for a decision on version 1 of the provisioned template. */
  const decisionOnV1 = (customer: string, decision: DecisionValue) => ({
    data: {
      decision_id: expect.any(String),
      customer_id: customer,
      template_code: p.templateCode,
      consent_version_id: p.versionId,
      version: 1,
      decision,
      decided_at: expect.stringMatching(isoUtc),
    },
  });

  /**
   * The given customers' subjects (the store knows customers by their random id), and the
   * stored decisions of those customers, by customer id, each customer's in `seq` order. Each
   * decision holds, sealed, the id of the customer whose subject it is filed under.
   */
  const storedHistories = (customers: string[]) =>
    withStore(store, async (db) => {
      const subjectOf = await subjectIdsOf(db, p.alias, customers);
      const customerOf = new Map([...subjectOf].map(([customer, id]) => [id, customer]));
      const rows =
        subjectOf.size === 0
          ? []
          : await db
              .selectFrom('decisions')
              .select([
                'id',
                'subject_id',
                'personal',
                'decision',
                'seq',
                'idempotency_key',
                'consent_version_id',
              ])
              .where('subject_id', 'in', [...subjectOf.values()])
              .orderBy('subject_id')
              .orderBy('seq')
              .execute();
      const sealedCustomerOf = await sealedCustomersOf(db, p.alias, rows);
      const histories = new Map<string, typeof rows>();
      const misfiled: string[] = [];
      for (const row of rows) {
        const customer = customerOf.get(row.subject_id) ?? '';
        if (sealedCustomerOf.get(row.id) !== customer) {
          misfiled.push(`${row.id} of ${customer}: sealed ${sealedCustomerOf.get(row.id)}`);
        }
        const history = histories.get(customer) ?? [];
        history.push(row);
        histories.set(customer, history);
      }
      expect(misfiled, 'decisions whose sealed customer is not their subject').toEqual([]);
      return { histories, subjectOf };
    });

  it('a version published with the command line is answered by latest on both instances within 1 second, and pending flips to accepted false on both', async () => {
    const customer = `visibility-${randomUUID()}`;
    const given = await decide(a, customer, 'given');
    expect(given.status).toBe(201);
    for (const server of [a, b]) {
      const pending = await get(server, pendingPath(customer));
      expect(pending.status).toBe(200);
      expect(pending.body.data.accepted, `pending on ${instanceName(server)}`).toBe(true);
    }

    const published = expectJsonObject(
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
          '<p>Second text, seen by every instance.</p>',
        ],
        cliEnv,
      ),
    );
    // The publish committed before the command exited.
    const committedBy = performance.now();
    expect(published.version).toBe(2);
    const publishedId = String(published.consent_version_id);
    // file_url is built from the answering instance's PUBLIC_BASE_URL.
    const versionAsAnsweredBy = (server: ServerProcess) => ({
      ...published,
      file_url: `${server.baseUrl}/api/content/${publishedId}.html`,
    });

    /** Polls latest until it answers the new version; ms after the commit the request started. */
    const visibleAfter = async (server: ServerProcess) => {
      for (let attempt = 0; attempt < 200; attempt += 1) {
        const startedAt = performance.now() - committedBy;
        const latest = await get(server, latestPath());
        expect(latest.status).toBe(200);
        if (latest.body.data.consent_version_id === publishedId) {
          expect(latest.body).toEqual({ data: versionAsAnsweredBy(server) });
          return startedAt;
        }
        // The contract's bound: a request that starts more than 1 s after the commit sees it.
        expect(
          startedAt,
          `latest on ${instanceName(server)} still answers version ${latest.body.data.version} to a request started ${Math.round(startedAt)} ms after the publish`,
        ).toBeLessThanOrEqual(1_000);
        await delay(20);
      }
      throw new Error(`latest on ${instanceName(server)}: polled 200 times without an answer`);
    };
    const [seenOnA, seenOnB] = await Promise.all([visibleAfter(a), visibleAfter(b)]);
    console.info(
      `publish visibility: A ${Math.round(seenOnA)} ms, B ${Math.round(seenOnB)} ms after the command returned`,
    );

    for (const server of [a, b]) {
      const pending = await get(server, pendingPath(customer));
      expect(pending, `pending on ${instanceName(server)}`).toEqual({
        status: 200,
        body: {
          data: {
            accepted: false,
            consent_version: versionAsAnsweredBy(server),
            decision: null,
            decided_at: null,
          },
        },
      });
    }
  });

  it('when two withdraws of one given race on the two instances, exactly one is 201 and the other 409 1005, for each of 20 customers', async () => {
    const customers = Array.from({ length: 20 }, (_, i) => `withdraw-race-${i}-${randomUUID()}`);
    const givens = await Promise.all(
      customers.map((customer, i) => decide(i % 2 === 0 ? a : b, customer, 'given')),
    );
    for (const [i, given] of givens.entries()) {
      expect(given).toMatchObject({ status: 201, body: decisionOnV1(customers[i] ?? '', 'given') });
    }

    const races = await Promise.all(
      customers.map((customer) =>
        Promise.all([decide(a, customer, 'withdraw'), decide(b, customer, 'withdraw')]),
      ),
    );

    const wrong: string[] = [];
    const wins = { A: 0, B: 0 };
    const winners = new Map<string, string>();
    for (const [i, answers] of races.entries()) {
      const customer = customers[i] ?? '';
      const accepted = answers.filter((answer) => answer.status === 201);
      const refused = answers.filter((answer) => answer.status === 409);
      const winner = accepted[0];
      if (accepted.length !== 1 || refused.length !== 1 || winner === undefined) {
        wrong.push(`${customer}: ${JSON.stringify(answers)}`);
        continue;
      }
      expect(winner.body).toEqual(decisionOnV1(customer, 'withdraw'));
      expect(refused[0]?.body).toEqual(nothingToWithdraw);
      wins[winner.instance] += 1;
      winners.set(customer, winner.body.data.decision_id);
    }
    expect(wrong, 'customers without exactly one 201 and one 409').toEqual([]);
    console.info(`withdraw race: A won ${wins.A}, B won ${wins.B} of ${customers.length}`);

    const { histories } = await storedHistories(customers);
    for (const [i, customer] of customers.entries()) {
      const history = histories.get(customer) ?? [];
      expect(
        history.map((row) => [row.seq, row.decision, row.id]),
        customer,
      ).toEqual([
        [1, 'given', givens[i]?.body.data.decision_id],
        [2, 'withdraw', winners.get(customer)],
      ]);
    }
  });

  it(
    'a burst of 1,000 decisions over both instances answers only 201 or 409 1005, and the store holds exactly the 201s with consistent per-customer state',
    async () => {
      // 100 customers with six decisions each (four given or reject, two withdraws), whose requests
      // overlap across the instances; 350 with one given or reject; 50 whose only request is a
      // withdraw (always 409 1005). 750 given or reject in all, 250 withdraws.
      const burstId = randomUUID().slice(0, 8);
      const requests: Array<{ customer: string; decision: DecisionValue }> = [];
      for (let i = 0; i < 100; i += 1) {
        for (const decision of ['given', 'reject', 'withdraw', 'given', 'withdraw', 'reject'])
          requests.push({
            customer: `burst-${burstId}-busy-${i}`,
            decision: decision as DecisionValue,
          });
      }
      for (let i = 0; i < 350; i += 1)
        requests.push({
          customer: `burst-${burstId}-once-${i}`,
          decision: i % 2 ? 'reject' : 'given',
        });
      for (let i = 0; i < 50; i += 1)
        requests.push({ customer: `burst-${burstId}-nothing-${i}`, decision: 'withdraw' });
      expect(requests).toHaveLength(1_000);
      const order = shuffled(requests, 20_240_601);

      const answers: Array<Answer & { customer: string; decision: DecisionValue }> = [];
      const failures: string[] = [];
      const inFlight = 50;
      let next = 0;
      const started = performance.now();
      const worker = async () => {
        for (let i = 0; i < order.length && next < order.length; i += 1) {
          const index = next;
          next += 1;
          const request = order[index];
          if (request === undefined) return;
          // Every other request to each instance: 500 each.
          const server = index % 2 === 0 ? a : b;
          try {
            const answer = await decide(server, request.customer, request.decision);
            answers.push({ ...answer, ...request });
          } catch (error) {
            failures.push(
              `${request.customer} ${request.decision}: ${String((error as Error).cause ?? error)}`,
            );
          }
        }
      };
      await Promise.all(Array.from({ length: inFlight }, () => worker()));
      const elapsedMs = performance.now() - started;

      expect(failures, 'requests without an answer').toEqual([]);
      expect(answers).toHaveLength(1_000);
      expect(answers.filter((answer) => answer.instance === 'A')).toHaveLength(500);

      const isRecordedAs = (body: any, customer: string, decision: DecisionValue) => {
        const data = body?.data;
        return (
          Object.keys(data ?? {}).length === 7 &&
          typeof data.decision_id === 'string' &&
          data.customer_id === customer &&
          data.decision === decision &&
          data.template_code === p.templateCode &&
          data.consent_version_id === p.versionId &&
          data.version === 1 &&
          isoUtc.test(String(data.decided_at))
        );
      };
      const unexpected = answers.filter((answer) => {
        if (answer.status === 201)
          return !isRecordedAs(answer.body, answer.customer, answer.decision);
        if (answer.status === 409 && answer.decision === 'withdraw') {
          return JSON.stringify(answer.body) !== JSON.stringify(nothingToWithdraw);
        }
        return true;
      });
      expect(unexpected, 'answers other than 201 D, or 409 1005 to a withdraw').toEqual([]);

      const recorded = answers.filter((answer) => answer.status === 201);
      const refused = answers.filter((answer) => answer.status === 409);
      // A given or a reject on a version that allows re-consent is always recorded.
      expect(recorded.filter((answer) => answer.decision !== 'withdraw')).toHaveLength(750);
      expect(
        refused.filter((answer) => answer.customer.includes('-nothing-')),
        'a withdraw with no decision before it',
      ).toHaveLength(50);
      console.info(
        `burst: 1000 decisions in ${Math.round(elapsedMs)} ms (${Math.round(
          1_000_000 / elapsedMs,
        )} requests/s, ${inFlight} in flight), ${recorded.length} x 201, ${refused.length} x 409`,
      );

      const customers = [...new Set(requests.map((request) => request.customer))];
      const { histories, subjectOf } = await storedHistories(customers);
      const subjects = [...subjectOf.values()];
      expect(subjects.length, 'customers the store knows').toBeGreaterThan(0);
      const { templateStates, versionStates } = await withStore(store, async (db) => ({
        templateStates: await db
          .selectFrom('customer_template_states')
          .selectAll()
          .where('subject_id', 'in', subjects)
          .execute(),
        versionStates: await db
          .selectFrom('customer_version_states')
          .selectAll()
          .where('subject_id', 'in', subjects)
          .execute(),
      }));
      const stored = [...histories.values()].flat();
      expect(stored.length, 'stored decisions against 201 answers').toBe(recorded.length);
      expect(new Set(stored.map((row) => row.id))).toEqual(
        new Set(recorded.map((answer) => answer.body.data.decision_id)),
      );

      const templateStateOf = new Map(templateStates.map((row) => [row.subject_id, row]));
      const versionStateOf = new Map(versionStates.map((row) => [row.subject_id, row]));
      expect(templateStates).toHaveLength(histories.size);
      expect(versionStates).toHaveLength(histories.size);
      const disagreements: string[] = [];
      for (const [customer, history] of histories) {
        const seqs = history.map((row) => row.seq);
        const last = history.at(-1);
        const answered = recorded.filter((answer) => answer.customer === customer).length;
        if (seqs.join() !== history.map((_, i) => i + 1).join()) {
          disagreements.push(`${customer}: seq ${seqs.join()}`);
        }
        if (history.length !== answered) {
          disagreements.push(`${customer}: ${history.length} stored, ${answered} answered 201`);
        }
        for (const [i, row] of history.entries()) {
          if (row.decision === 'withdraw' && history[i - 1]?.decision !== 'given') {
            disagreements.push(
              `${customer}: withdraw at seq ${row.seq} after ${history[i - 1]?.decision}`,
            );
          }
        }
        const subject = subjectOf.get(customer) ?? '';
        const state = templateStateOf.get(subject);
        if (
          state?.decision_count !== history.length ||
          state.last_decision_id !== last?.id ||
          state.last_decision !== last.decision
        ) {
          disagreements.push(
            `${customer}: template state ${JSON.stringify(state)}, last ${JSON.stringify(last)}`,
          );
        }
        const versionState = versionStateOf.get(subject);
        if (versionState?.last_decision_id !== last?.id) {
          disagreements.push(`${customer}: version state ${JSON.stringify(versionState)}`);
        }
      }
      expect(disagreements).toEqual([]);
    },
    budget(60_000),
  );

  it(
    'both instances append to one decision log: one checkpoint per size, each signed, each consistent with the next, and every decision logged once',
    async () => {
      // Until both instances have appended everything queued so far.
      const drained = await pollUntil(
        async () => {
          const queued = await withStore(store, (db) =>
            db
              .selectFrom('tlog_pending')
              .select((eb) => eb.fn.countAll<number | string>().as('n'))
              .executeTakeFirstOrThrow(),
          );
          return Number(queued.n) === 0 ? true : undefined;
        },
        { timeoutMs: budget(10_000), intervalMs: 100 },
      );
      expect(drained, 'the queue of the decision log drains').toBe(true);
      const { checkpoints, entries, decisions, publications, vkey } = await withStore(
        store,
        async (db) => ({
          checkpoints: await db
            .selectFrom('tlog_checkpoints')
            .selectAll()
            .orderBy('size')
            .execute(),
          entries: await db
            .selectFrom('tlog_entries')
            .select(['idx', 'record_id'])
            .orderBy('idx')
            .execute(),
          decisions: await db.selectFrom('decisions').select('id').execute(),
          publications: await db.selectFrom('publications').select('id').execute(),
          vkey: (await db.selectFrom('tlog_logs').select('verifier_key').executeTakeFirstOrThrow())
            .verifier_key,
        }),
      );
      // Every decision, and the publication of each version they were made on, once.
      expect(publications.length).toBeGreaterThan(0);
      expect(entries.length).toBe(decisions.length + publications.length);
      expect(entries.map((e) => Number(e.idx))).toEqual(entries.map((_, i) => i));
      expect(new Set(entries.map((e) => e.record_id))).toEqual(
        new Set([...publications, ...decisions].map((d) => d.id)),
      );
      // Several batches were appended, so checkpoints of many sizes exist, none twice.
      expect(checkpoints.length).toBeGreaterThan(1);
      expect(new Set(checkpoints.map((c) => Number(c.size))).size).toBe(checkpoints.length);
      const key = parseVerifierKey(vkey);
      if (!key.ok) throw new Error(key.reason);
      for (const checkpoint of checkpoints) {
        const opened = openCheckpoint(checkpoint.note, [key.value]);
        expect(opened.ok && opened.value.checkpoint.size).toBe(Number(checkpoint.size));
      }
      // The audit recomputes the log and checks every consistency between checkpoints.
      const audit = await runCli(['audit', '--tenant', p.alias], cliEnv);
      expect(audit.code, showResult(audit)).toBe(0);
      for (const server of [a, b]) {
        expect(server.describe()).not.toContain('appending to the decision log failed');
      }
    },
    budget(30_000),
  );

  it('an Idempotency-Key sent to A then B answers the first response on B and stores once; another body is 422 1010; 20 at once over both store once', async () => {
    const customer = `idempotent-${randomUUID()}`;
    const key = `multi-${randomUUID()}`;
    const first = await decide(a, customer, 'given', { idempotencyKey: key });
    expect(first).toEqual({
      instance: 'A',
      status: 201,
      body: decisionOnV1(customer, 'given'),
      replayed: null,
    });
    const retry = await decide(b, customer, 'given', { idempotencyKey: key });
    expect(retry).toEqual({ instance: 'B', status: 201, body: first.body, replayed: 'true' });

    const otherBody = await decide(b, customer, 'reject', { idempotencyKey: key });
    expect(otherBody).toEqual({
      instance: 'B',
      status: 422,
      body: idempotencyMismatch,
      replayed: null,
    });

    const together = `together-${randomUUID()}`;
    const sharedKey = `multi-${randomUUID()}`;
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        decide(i % 2 === 0 ? a : b, together, 'given', { idempotencyKey: sharedKey }),
      ),
    );
    const firstAnswer = answers.find((answer) => answer.replayed === null);
    expect(firstAnswer?.body).toEqual(decisionOnV1(together, 'given'));
    for (const answer of answers) {
      expect(answer.status).toBe(201);
      expect(answer.body).toEqual(firstAnswer?.body);
    }
    expect(
      answers.filter((answer) => answer.replayed === null),
      'answers not replayed',
    ).toHaveLength(1);
    expect(answers.filter((answer) => answer.replayed === 'true')).toHaveLength(19);

    const { histories } = await storedHistories([customer, together]);
    expect(histories.get(customer)?.map((row) => [row.id, row.idempotency_key])).toEqual([
      [first.body.data.decision_id, key],
    ]);
    expect(histories.get(together)?.map((row) => [row.id, row.idempotency_key])).toEqual([
      [firstAnswer?.body.data.decision_id, sharedKey],
    ]);
  });
});
