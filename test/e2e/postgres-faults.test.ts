/**
 * PostgreSQL going away under load: requests answer 503 1009 quickly (no hang, no crash),
 * `/api/health` answers 503, the service recovers by itself when the database is back, and no
 * decision answered 201 is lost. Runs on a dedicated PostgreSQL server (this file stops it), with
 * `serve` as a child process over loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/platform/config.js';
import { createDb } from '../../src/platform/db.js';
import { subjectIdsOf } from '../helpers/data-key.js';
import { createDatabase, startTcpProxy, type TcpProxy, withPort } from '../helpers/faults.js';
import { type PostgresServer, startPostgresServer } from '../helpers/postgres-server.js';
import {
  freePort,
  killAllChildren,
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
} from '../helpers/process.js';
import { budget } from '../helpers/time.js';

const jsonType = 'application/json; charset=utf-8';
const unavailableBody = { code: '1009', message: 'Service unavailable.' };
const healthDown = { status: 'unavailable', success: false };
const healthUp = { status: 'ok', success: true };

/** Settings under test: how long a connection attempt and a statement may take. */
const connectTimeoutMs = 1_000;
const statementTimeoutMs = 2_000;
/** Every answer while the database is away comes within this (generous) bound. */
const outageAnswerBoundMs = budget(3_000);
/** Any answer at all, the moments the database goes and comes back included. */
const anyAnswerBoundMs = budget(5_000);

/** One HTTP exchange: its answer, or why none came. */
interface Probe {
  startedAt: number;
  endedAt: number;
  status: number | undefined;
  contentType: string | null;
  body: unknown;
  /** Set when no HTTP answer came (connection refused or reset, timeout). */
  error?: string;
}

const took = (probe: Probe) => probe.endedAt - probe.startedAt;

async function exchange(url: string, init: RequestInit = {}): Promise<Probe> {
  const startedAt = performance.now();
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(budget(10_000)) });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // kept as text for the assertion message
    }
    return {
      startedAt,
      endedAt: performance.now(),
      status: response.status,
      contentType: response.headers.get('content-type'),
      body,
    };
  } catch (error) {
    return {
      startedAt,
      endedAt: performance.now(),
      status: undefined,
      contentType: null,
      body: undefined,
      error: String((error as Error).cause ?? error),
    };
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  if (sorted.length % 2 === 1) return sorted[middle]!;
  return (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const round = (ms: number) => Math.round(ms);
const describeProbe = (probe: Probe, origin: number) =>
  `${probe.status ?? probe.error} ${JSON.stringify(probe.body)?.slice(0, 100)} after ` +
  `${round(took(probe))} ms (started at ${round(probe.startedAt - origin)} ms)`;

interface DecisionAnswer extends Probe {
  customer: string;
}

/**
 * A bounded stream of `given` decisions, each for a new customer, from `workers` concurrent
 * loops, until `stop()` (or `maxRequests`). A worker that gets no HTTP answer at all stops: the
 * assertions report it.
 */
function startLoad(
  server: ServerProcess,
  p: Provisioned,
  prefix: string,
  workers: number,
  maxRequests = 20_000,
) {
  const answers: DecisionAnswer[] = [];
  const acknowledged = new Map<string, string>(); // customer -> decision_id answered 201
  let stopped = false;
  let next = 0;
  const worker = async () => {
    while (!stopped && next < maxRequests) {
      next += 1;
      const customer = `${prefix}-${next}`;
      const probe = await exchange(
        `${server.baseUrl}/api/v1/customers/${customer}/consents/decisions`,
        {
          method: 'POST',
          headers: { 'x-system-api-key': p.apiKey.key, 'content-type': 'application/json' },
          body: JSON.stringify({ consent_version_id: p.versionId, decision: 'given' }),
        },
      );
      answers.push({ ...probe, customer });
      const data = (probe.body as { data?: { decision_id?: unknown } } | undefined)?.data;
      if (probe.status === 201 && typeof data?.decision_id === 'string') {
        acknowledged.set(customer, data.decision_id);
      }
      if (probe.error !== undefined) return;
    }
  };
  const running = Promise.all(Array.from({ length: workers }, () => worker()));
  return {
    answers,
    acknowledged,
    acknowledgedSince: (since: number) =>
      answers.filter((a) => a.status === 201 && a.startedAt >= since).length,
    async stop() {
      stopped = true;
      await running;
    },
  };
}

/** Polls until `count` decisions that started at or after `since` were answered 201. */
async function waitForAcknowledged(
  load: ReturnType<typeof startLoad>,
  server: ServerProcess,
  since: number,
  count: number,
): Promise<void> {
  const reached = await pollUntil(
    async () => {
      if (!server.running) return false;
      return load.acknowledgedSince(since) >= count ? true : undefined;
    },
    { timeoutMs: budget(10_000), intervalMs: 20 },
  );
  const last = load.answers.slice(-5).map((a) => describeProbe(a, since));
  expect(
    reached,
    `${count} decisions were not answered 201 (last answers: ${last.join('; ')})\n${server.describe()}`,
  ).toBe(true);
}

/**
 * Every decision answered 201 is in the store, and the per-customer states agree with the
 * decisions (each customer of the load decided once). The store knows customers by subject id:
 * an answered customer's is found by their look-up. Returns how many decisions are stored.
 */
async function expectStoreAgrees(
  databaseUrl: string,
  tenantAlias: string,
  acknowledged: Map<string, string>,
): Promise<number> {
  const store = createDb(loadConfig({ DATABASE_URL: databaseUrl, DATABASE_POOL_SIZE: '2' }));
  try {
    const decisions = await store
      .selectFrom('decisions')
      .select(['id', 'subject_id', 'template_id', 'seq'])
      .execute();
    const subjectOf = await subjectIdsOf(store, tenantAlias, acknowledged.keys());
    const stored = new Set(decisions.map((d) => d.id));
    const lost = [...acknowledged].filter(([, id]) => !stored.has(id));
    expect(lost, 'decisions answered 201 but not in the store').toEqual([]);

    const latest = new Map<string, { id: string; seq: number; count: number }>();
    for (const d of decisions) {
      const key = `${d.subject_id} ${d.template_id}`;
      const seen = latest.get(key);
      if (!seen) latest.set(key, { id: d.id, seq: d.seq, count: 1 });
      else {
        seen.count += 1;
        if (d.seq > seen.seq) Object.assign(seen, { id: d.id, seq: d.seq });
      }
    }
    const states = await store
      .selectFrom('customer_template_states')
      .select(['subject_id', 'template_id', 'decision_count', 'last_decision_id'])
      .execute();
    expect(states.length).toBe(latest.size);
    const disagreements: string[] = [];
    for (const state of states) {
      const l = latest.get(`${state.subject_id} ${state.template_id}`);
      if (l?.id !== state.last_decision_id || l.count !== Number(state.decision_count)) {
        disagreements.push(`${state.subject_id}: ${JSON.stringify({ state, latest: l })}`);
      }
    }
    const stateBySubject = new Map(states.map((s) => [s.subject_id, s]));
    for (const [customer, decisionId] of acknowledged) {
      const subject = subjectOf.get(customer);
      const state = subject === undefined ? undefined : stateBySubject.get(subject);
      if (state?.last_decision_id !== decisionId || Number(state.decision_count) !== 1) {
        disagreements.push(
          `${customer} (subject ${subject}): answered ${decisionId}, state ${JSON.stringify(state)}`,
        );
      }
    }
    // The per-version state names the same (only) decision.
    const versionStates = await store
      .selectFrom('customer_version_states')
      .select(['subject_id', 'last_decision_id'])
      .execute();
    expect(versionStates.length).toBe(decisions.length);
    const decisionBySubject = new Map(decisions.map((d) => [d.subject_id, d.id]));
    for (const v of versionStates) {
      if (decisionBySubject.get(v.subject_id) !== v.last_decision_id) {
        disagreements.push(`${v.subject_id}: version state names ${v.last_decision_id}`);
      }
    }
    expect(disagreements).toEqual([]);
    return decisions.length;
  } finally {
    await store.destroy();
  }
}

/** Every answer is 201, or 503 1009 in the error shape; never a 500, never no answer. */
function expectOnly201Or503(answers: Probe[], origin: number): void {
  const noAnswer = answers.filter((a) => a.status === undefined);
  expect(
    noAnswer.map((a) => describeProbe(a, origin)),
    'requests with no answer',
  ).toEqual([]);
  const unexpected = answers.filter((a) => a.status !== 201 && a.status !== 503);
  expect(
    unexpected.map((a) => describeProbe(a, origin)),
    'answers other than 201/503',
  ).toEqual([]);
  const bad503 = answers.filter(
    (a) =>
      a.status === 503 &&
      (JSON.stringify(a.body) !== JSON.stringify(unavailableBody) || a.contentType !== jsonType),
  );
  expect(bad503.map((a) => `${a.contentType} ${JSON.stringify(a.body)}`)).toEqual([]);
}

describe('PostgreSQL going away under load', () => {
  let pg: PostgresServer | undefined;
  let temp: TempStore | undefined;
  let proxy: TcpProxy | undefined;
  /** Whether the dedicated server is stopped (by a test that failed half-way, too). */
  let databaseDown = false;
  const stopDatabase = async () => {
    databaseDown = true;
    await pg!.stop();
  };
  const startDatabase = async () => {
    await pg!.start();
    databaseDown = false;
  };

  beforeAll(async () => {
    pg = await startPostgresServer();
    temp = makeTempStore();
  }, budget(60_000));

  afterAll(async () => {
    await killAllChildren();
    await proxy?.close();
    await pg?.remove();
    await temp?.remove();
  }, budget(30_000));

  /** The environment of `serve` and of the management commands (one data key for all). */
  const envFor = (port: number, databaseUrl: string): Record<string, string> => ({
    ...serverEnv(temp!, port, 'warn'),
    DATABASE_URL: databaseUrl,
    RATE_LIMIT_PER_MINUTE: '0',
    DATABASE_POOL_SIZE: '10',
    DATABASE_CONNECT_TIMEOUT_MS: String(connectTimeoutMs),
    DATABASE_STATEMENT_TIMEOUT_MS: String(statementTimeoutMs),
  });

  it(
    'when the database stops during a stream of decisions, requests answer 503 1009 quickly, health answers 503, the process lives on, it recovers by itself, and every decision answered 201 is stored',
    async () => {
      const db = pg!;
      const databaseUrl = await createDatabase(db.url);
      const port = await freePort();
      const env = envFor(port, databaseUrl);
      const p = await provision(env);
      const server = await startServer({ store: temp!, port, env });
      const health = (path = '/api/health') => exchange(`${server.baseUrl}${path}`);

      const origin = performance.now();
      const load = startLoad(server, p, 'stop', 10);
      let stopCalledAt = Number.NaN;
      let stoppedAt = Number.NaN;
      let startCalledAt = Number.NaN;
      let startedAt = Number.NaN;
      let healthyAt = Number.NaN;
      const checks: Probe[] = [];
      const reads: Probe[] = [];
      try {
        // 1. Decisions are recorded while the database is up.
        await waitForAcknowledged(load, server, origin, 50);

        // 2. The database goes away (a fast shutdown: sessions are terminated, then refused).
        stopCalledAt = performance.now();
        await stopDatabase();
        stoppedAt = performance.now();

        // While it is down: the health check says so, as do reads, and the process lives on.
        const outageSeen = await pollUntil(
          async () => {
            if (!server.running) return false;
            checks.push(await health(), await health('/api/v1/health'));
            reads.push(
              await exchange(
                `${server.baseUrl}/api/v1/customers/stop-1/consents/templates/${p.templateCode}/pending`,
                { headers: { 'x-system-api-key': p.apiKey.key } },
              ),
            );
            const during = load.answers.filter((a) => a.startedAt >= stoppedAt).length;
            // Long enough for connection attempts to fail again and again, each with its timeout.
            const longEnough = performance.now() - stoppedAt >= 2 * connectTimeoutMs;
            return during >= 100 && longEnough ? true : undefined;
          },
          { timeoutMs: budget(10_000), intervalMs: 100 },
        );
        expect(
          server.running,
          `serve exited while the database was down\n${server.describe()}`,
        ).toBe(true);
        expect(outageSeen, 'too few answers while the database was down').toBe(true);

        // 3. The database comes back; the service notices by itself.
        startCalledAt = performance.now();
        await startDatabase();
        startedAt = performance.now();
        const healthy = await pollUntil(
          async () => {
            if (!server.running) return Number.NaN;
            return (await health()).status === 200 ? performance.now() : undefined;
          },
          { timeoutMs: budget(15_000), intervalMs: 50 },
        );
        expect(
          healthy,
          `not healthy within 15 s of the database's return\n${server.describe()}`,
        ).toBeGreaterThan(0);
        healthyAt = healthy!;
        expect((await health()).body).toEqual(healthUp);
        await waitForAcknowledged(load, server, healthyAt, 50);
      } finally {
        await load.stop();
        // The next test needs the database, whatever happened here.
        if (databaseDown) await startDatabase();
      }

      // Health and reads while the database was down: 503 in their shapes, quickly.
      expect(checks.length).toBeGreaterThan(0);
      for (const probe of [...checks, ...reads]) {
        expect(took(probe), describeProbe(probe, origin)).toBeLessThan(outageAnswerBoundMs);
      }
      expect(checks.map((c) => ({ status: c.status, body: c.body, type: c.contentType }))).toEqual(
        checks.map(() => ({ status: 503, body: healthDown, type: jsonType })),
      );
      expect(reads.map((r) => ({ status: r.status, body: r.body, type: r.contentType }))).toEqual(
        reads.map(() => ({ status: 503, body: unavailableBody, type: jsonType })),
      );

      // 4. Every answer of the load: 201, or 503 1009; each within the bound.
      const { answers, acknowledged } = load;
      expectOnly201Or503(answers, origin);
      const slow = answers.filter((a) => took(a) >= anyAnswerBoundMs);
      expect(
        slow.map((a) => describeProbe(a, origin)),
        'slow answers',
      ).toEqual([]);

      // Decisions made entirely while the database was down: all 503, each quickly.
      const duringOutage = answers.filter(
        (a) => a.startedAt >= stoppedAt && a.endedAt <= startCalledAt,
      );
      expect(duringOutage.length).toBeGreaterThanOrEqual(100);
      expect(
        duringOutage.filter((a) => a.status !== 503).map((a) => describeProbe(a, origin)),
      ).toEqual([]);
      const outageMs = duringOutage.map(took);
      expect(Math.max(...outageMs)).toBeLessThan(outageAnswerBoundMs);

      // After the recovery, every decision is recorded again.
      const afterRecovery = answers.filter((a) => a.startedAt >= healthyAt);
      expect(
        afterRecovery.filter((a) => a.status !== 201).map((a) => describeProbe(a, origin)),
      ).toEqual([]);

      // 5. The store: every decision answered 201, before, during and after the outage.
      const stored = await expectStoreAgrees(databaseUrl, p.alias, acknowledged);
      console.info(
        `postgres-faults (database stopped): ${JSON.stringify({
          answers: answers.length,
          acknowledged: acknowledged.size,
          stored,
          outageAnswers: duringOutage.length,
          outage503MaxMs: round(Math.max(...outageMs)),
          outage503MedianMs: Number(median(outageMs).toFixed(1)),
          healthDuringOutageMaxMs: round(Math.max(...checks.map(took))),
          stopMs: round(stoppedAt - stopCalledAt),
          databaseStartMs: round(startedAt - startCalledAt),
          healthyAfterDatabaseReadyMs: round(healthyAt - startedAt),
          healthyAfterStartCalledMs: round(healthyAt - startCalledAt),
        })}`,
      );

      // After all that, the process still shuts down cleanly.
      await server.stop(budget(10_000));
      expect(server.exit, server.describe()).toEqual({ code: 0, signal: null });
    },
    budget(40_000),
  );

  it(
    'when the network to the database is cut (nothing refused, nothing arrives) during a stream of decisions, every request still answers within the bound, and the service recovers when it heals',
    async () => {
      const db = pg!;
      if (databaseDown) await startDatabase();
      const databaseUrl = await createDatabase(db.url);
      proxy = await startTcpProxy(db.port);
      const port = await freePort();
      const env = envFor(port, withPort(databaseUrl, proxy.port));
      const p = await provision(envFor(port, databaseUrl));
      const server = await startServer({ store: temp!, port, env });
      const health = () => exchange(`${server.baseUrl}/api/health`);

      const origin = performance.now();
      // More workers than connections: some wait for a connection, some hold one.
      const load = startLoad(server, p, 'cut', 20);
      const checks: Array<Promise<Probe>> = [];
      let cutAt = Number.NaN;
      let healedAt = Number.NaN;
      let healthyAt = Number.NaN;
      try {
        await waitForAcknowledged(load, server, origin, 50);

        cutAt = performance.now();
        proxy.partition();
        // Health checks every 250 ms, each on its own (one that hangs does not hold up the next),
        // for a cut longer than any answer may take.
        const cutFor = anyAnswerBoundMs + 1_000;
        await pollUntil(
          async () => {
            checks.push(health());
            return performance.now() - cutAt >= cutFor ? true : undefined;
          },
          { timeoutMs: cutFor + 1_000, intervalMs: 250 },
        );
        expect(server.running, `serve exited during the cut\n${server.describe()}`).toBe(true);

        healedAt = performance.now();
        proxy.heal();
        const healthy = await pollUntil(
          async () => {
            if (!server.running) return Number.NaN;
            return (await health()).status === 200 ? performance.now() : undefined;
          },
          { timeoutMs: budget(15_000), intervalMs: 50 },
        );
        expect(
          healthy,
          `not healthy within 15 s of the network's return\n${server.describe()}`,
        ).toBeGreaterThan(0);
        healthyAt = healthy!;
        await waitForAcknowledged(load, server, healthyAt, 20);
      } finally {
        await load.stop();
      }
      const healthProbes = await Promise.all(checks);
      await server.stop(budget(10_000));
      const { answers, acknowledged } = load;
      const stored = await expectStoreAgrees(databaseUrl, p.alias, acknowledged);
      const duringCut = answers.filter((a) => a.startedAt >= cutAt && a.startedAt < healedAt);
      const slow = answers.filter((a) => took(a) >= anyAnswerBoundMs);
      const slowHealth = healthProbes.filter((c) => took(c) >= outageAnswerBoundMs);
      console.info(
        `postgres-faults (network cut): ${JSON.stringify({
          answers: answers.length,
          acknowledged: acknowledged.size,
          stored,
          startedDuringCut: duringCut.length,
          answered503DuringCut: duringCut.filter((a) => a.status === 503).length,
          cutAnswerMaxMs: round(Math.max(...duringCut.map(took))),
          cutAnswerMedianMs: Number(median(duringCut.map(took)).toFixed(1)),
          slowAnswers: slow.length,
          healthChecks: healthProbes.length,
          slowHealthChecks: slowHealth.length,
          healthyAfterHealMs: round(healthyAt - healedAt),
        })}`,
      );

      expectOnly201Or503(answers, origin);
      // Health checks during the cut: 503, quickly.
      expect(
        healthProbes
          .filter(
            (c) => c.endedAt <= healedAt && (c.status !== 503 || took(c) >= outageAnswerBoundMs),
          )
          .map((c) => describeProbe(c, cutAt)),
        'health checks during the cut',
      ).toEqual([]);
      expect(
        slowHealth.map((c) => describeProbe(c, cutAt)),
        'slow health checks',
      ).toEqual([]);
      // No request waits on a database that does not answer for longer than the bound.
      expect(
        slow.map((a) => describeProbe(a, cutAt)),
        'slow answers (times from the cut)',
      ).toEqual([]);
      expect(server.exit, server.describe()).toEqual({ code: 0, signal: null });
    },
    budget(40_000),
  );

  it(
    'serve started while the database is down exits non-zero at once, with a message naming the unreachable database and no password',
    async () => {
      const db = pg!;
      await stopDatabase();
      const port = await freePort();
      const started = performance.now();
      const result = await runCli(['serve'], envFor(port, db.url), { timeoutMs: budget(15_000) });
      const ms = performance.now() - started;
      console.info(
        `postgres-faults (serve with the database down): ${round(ms)} ms, ${showResult(result)}`,
      );
      expect(result.signal, showResult(result)).toBe(null);
      expect(result.code, showResult(result)).not.toBe(0);
      expect(ms).toBeLessThan(budget(10_000));
      // The operator reads what is wrong: the store could not be reached, and where.
      expect(result.stderr).toMatch(/ECONNREFUSED|connect|database|store/i);
      expect(result.stderr).toContain(`127.0.0.1:${db.port}`);
      expect(result.stderr).not.toContain('postgres:postgres@');
      // It did not leave a listener behind.
      expect((await exchange(`http://127.0.0.1:${port}/api/health`)).status).toBe(undefined);
    },
    budget(20_000),
  );
});
