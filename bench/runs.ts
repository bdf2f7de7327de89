import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig as loadServiceConfig } from '../src/platform/config.js';
import { createDb, type Db } from '../src/platform/db.js';
import { freePort } from '../test/helpers/postgres-server.js';
import type { BenchConfig, Endpoint } from './config.js';
import { customerId, customerIdWidth, type Fixture, freshCustomers } from './dataset.js';
import {
  type Cores,
  loadCore,
  machineBusySeconds,
  runNodeJson,
  serverCore,
  spawnPinned,
  stopProcess,
  treeCpuDelta,
  treeCpuSeconds,
  treePeakRssMb,
} from './processes.js';
import type { LoadResult, Row } from './report.js';
import {
  type CapturedResponse,
  capture,
  createWebhookEndpoint,
  type Placement,
  startService,
} from './service.js';

/** What a run measured besides the load child's own figures. */
interface Measured {
  load: LoadResult;
  peakRssMb: number | null;
  /** Cores used during the measured part by the server, the database and everything else. */
  serverCpu: number | null;
  dbCpu: number | null;
  otherCpu: number | null;
  /** The server's event-loop delay over the measured part, when watched. */
  loopDelay: { p50Ms: number; p99Ms: number; maxMs: number } | null;
}

interface Measuring {
  /** The measured server process, if any (none for the bare insert loop); its children (cluster
   * workers) are counted with it. */
  serverPid?: number | undefined;
  /** The embedded PostgreSQL's postmaster, if any. */
  dbPid?: number | null | undefined;
  /** Where the load generator runs; the load core unless told. */
  loadCores?: Cores | undefined;
  /** The server's event-loop delay file (bench/loop-delay.mjs), when it is watched. */
  loopDelayFile?: string | undefined;
}

interface Snapshot {
  at: number;
  server: Map<number, number> | null;
  db: Map<number, number> | null;
  machine: number;
}

function snapshot(m: Measuring): Snapshot {
  return {
    at: performance.now(),
    server: m.serverPid ? treeCpuSeconds(m.serverPid) : null,
    db: m.dbPid ? treeCpuSeconds(m.dbPid) : null,
    machine: machineBusySeconds(),
  };
}

/**
 * Runs a load child, reading CPU times when its measured part starts and ends: the machine's
 * busy time minus the server, database and load generator is what other processes took, which
 * says how far a figure can be trusted on a shared machine.
 */
async function measure(m: Measuring, script: string, loadConfig: unknown): Promise<Measured> {
  let start: Snapshot | undefined;
  let end: Snapshot | undefined;
  const load = await runNodeJson<LoadResult>(
    script,
    [JSON.stringify(loadConfig)],
    (line) => {
      if (line.includes('"phase":"measuring"')) {
        start = snapshot(m);
        askLoopDelay(m);
      }
      // Taken before the child disconnects, while PostgreSQL backends serving it still exist.
      if (line.includes('"phase":"done"')) {
        end = snapshot(m);
        if (m.loopDelayFile) rmSync(m.loopDelayFile, { force: true });
        askLoopDelay(m);
      }
    },
    m.loadCores ?? loadCore,
  );
  end ??= snapshot(m);
  // Per second of the snapshots' own interval, which is what the /proc counters cover.
  const wallS = start ? (end.at - start.at) / 1000 : load.durationS;
  const perSecond = (seconds: number | null) =>
    seconds === null ? null : Math.max(0, seconds / wallS);
  const serverCpu =
    start?.server && end.server ? perSecond(treeCpuDelta(start.server, end.server)) : null;
  const dbCpu = start?.db && end.db ? perSecond(treeCpuDelta(start.db, end.db)) : null;
  const busy = start ? perSecond(end.machine - start.machine) : null;
  const otherCpu =
    busy === null
      ? null
      : Math.max(0, busy - (serverCpu ?? 0) - (dbCpu ?? 0) - (load.loadCpu ?? 0));
  return {
    load,
    peakRssMb: m.serverPid ? treePeakRssMb(m.serverPid) : null,
    serverCpu,
    dbCpu,
    otherCpu,
    loopDelay: await readLoopDelay(m),
  };
}

/** Signals the server to write (and restart) its event-loop delay figures. */
function askLoopDelay(m: Measuring): void {
  if (m.loopDelayFile && m.serverPid) process.kill(m.serverPid, 'SIGUSR2');
}

/** The figures the server wrote when the measured part ended (waited for, a second at most). */
async function readLoopDelay(m: Measuring): Promise<Measured['loopDelay']> {
  if (!m.loopDelayFile) return null;
  for (let i = 0; i < 20; i += 1) {
    if (existsSync(m.loopDelayFile)) {
      try {
        return JSON.parse(readFileSync(m.loopDelayFile, 'utf8'));
      } catch {
        // Being written: read it again.
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return null;
}

/** The load generator of a run at full speed (fixed-rate runs keep bench/load.mjs). */
function loadScript(config: BenchConfig): string {
  return config.loadGenerator === 'wrk' ? 'bench/wrk-load.mjs' : 'bench/load.mjs';
}

function row(store: string, size: number | null, endpoint: string, m: Measured): Row {
  return {
    store,
    size,
    endpoint,
    rps: m.load.rps,
    vsCeiling: null,
    p50Ms: m.load.p50Ms,
    p99Ms: m.load.p99Ms,
    peakRssMb: m.peakRssMb,
    serverCpu: m.serverCpu,
    dbCpu: m.dbCpu,
    loadCpu: m.load.loadCpu ?? null,
    otherCpu: m.otherCpu,
    errors: m.load.non2xx + m.load.errors,
    statusCodes: m.load.statusCodes,
    warmupErrors: m.load.warmup ? m.load.warmup.non2xx + m.load.warmup.errors : 0,
    loopDelayP99Ms: m.loopDelay?.p99Ms ?? null,
    notes: [],
  };
}

function loadConfig(
  config: BenchConfig,
  url: string,
  endpoint: Endpoint,
  f: Fixture,
  size: number,
) {
  const common = {
    url,
    connections: config.connections,
    warmupS: config.warmupS,
    durationS: config.durationS,
    customers: { known: size / 2, fresh: freshCustomers, width: customerIdWidth },
    headers: { 'x-system-api-key': f.apiKey } as Record<string, string>,
    method: 'GET',
  };
  switch (endpoint) {
    case 'latest':
    case 'latest-metrics':
      return { ...common, path: `/api/v1/consent-templates/${f.templateCode}/latest` };
    case 'pending':
      return {
        ...common,
        path: `/api/v1/customers/{customer}/consents/templates/${f.templateCode}/pending`,
      };
    case 'decisions':
      return {
        ...common,
        method: 'POST',
        headers: { ...common.headers, 'content-type': 'application/json' },
        path: '/api/v1/customers/{customer}/consents/decisions',
        body: JSON.stringify({ consent_version_id: f.latest.id, decision: 'given' }),
      };
  }
}

export interface EndpointRun {
  row: Row;
  /** The first run captures a real `latest` response for the ceiling. */
  latest: CapturedResponse;
}

/**
 * A fresh `serve` process per run, so its peak memory is this run's own. With a placement (the
 * workers group), the service runs that many workers and the load generator shares their cores.
 */
export async function runEndpoint(
  config: BenchConfig,
  store: string,
  size: number,
  databaseUrl: string,
  fixture: Fixture,
  endpoint: Endpoint,
  logFile: string,
  dbPid: number | null,
  placement?: Placement,
): Promise<EndpointRun> {
  const withMetrics = endpoint === 'latest-metrics';
  const service = await startService(databaseUrl, logFile, {
    placement,
    env: withMetrics ? { METRICS_TOKEN: scrapeToken } : {},
    cpuProfileDir: config.cpuProfileDir,
  });
  // As Prometheus would, but every second: the scrapes' cost shows in the row.
  const scraper = withMetrics ? scrapeEverySecond(service.url) : undefined;
  try {
    const base = `${service.url}/api/v1/consent-templates/${fixture.templateCode}/latest`;
    const latest = await capture(base, fixture.apiKey);
    if (latest.status !== 200) throw new Error(`latest answered ${latest.status}`);
    if (endpoint === 'pending') await checkLoadedData(service.url, fixture, size);
    const load = loadConfig(config, service.url, endpoint, fixture, size);
    const measuring = {
      serverPid: service.pid,
      dbPid,
      loadCores: placement?.cores,
      loopDelayFile: service.loopDelayFile,
    };
    const m = await measure(measuring, loadScript(config), load);
    const r = row(store, size, endpoint, m);
    if (placement) {
      r.workers = placement.workers;
      r.cores = String(placement.cores);
    }
    if (r.errors > 0 || r.warmupErrors > 0) r.notes.push(...logExcerpt(logFile));
    return { row: r, latest };
  } finally {
    await scraper?.stop();
    await service.stop();
  }
}

const scrapeToken = 'bench-scrape-token-0123456789';

/** Scrapes `/metrics` once a second until stopped; a failed scrape stops the bench. */
function scrapeEverySecond(url: string): { stop(): Promise<void> } {
  let failure: Error | undefined;
  let inFlight: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    inFlight = fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${scrapeToken}` } })
      .then(async (response) => {
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
      })
      .catch((error: Error) => {
        failure ??= error;
      });
  }, 1000);
  return {
    async stop() {
      clearInterval(timer);
      await inFlight;
      if (failure) throw failure;
    },
  };
}

/**
 * The service must read the generated history as its own: a known even customer has accepted the
 * latest version, an odd one has not, a fresh one has no decision. Otherwise the loader is wrong
 * and the figures would measure something else.
 */
async function checkLoadedData(url: string, f: Fixture, size: number): Promise<void> {
  const expectations: [string, boolean, string | null][] = [['f000000000', false, null]];
  if (size > 0) expectations.push([customerId(0), true, 'given'], [customerId(1), false, null]);
  for (const [customer, accepted, decision] of expectations) {
    const response = await fetch(
      `${url}/api/v1/customers/${customer}/consents/templates/${f.templateCode}/pending`,
      { headers: { 'x-system-api-key': f.apiKey } },
    );
    const body = (await response.json()) as { data?: { accepted: boolean; decision: unknown } };
    if (body.data?.accepted !== accepted || body.data?.decision !== decision) {
      throw new Error(`pending for ${customer} answered ${JSON.stringify(body)}`);
    }
  }
}

/** Up to three distinct warnings or errors from the service's log, to say why a run failed. */
function logExcerpt(logFile: string): string[] {
  const seen = new Set<string>();
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    if (seen.size >= 3) break;
    try {
      const entry = JSON.parse(line) as {
        level?: number;
        msg?: string;
        err?: { message?: string };
      };
      if ((entry.level ?? 0) >= 40) seen.add(`log: ${entry.err?.message ?? entry.msg}`);
    } catch {
      if (line.trim() !== '') seen.add(`log: ${line.slice(0, 200)}`);
    }
  }
  return [...seen];
}

/** A reference server answering the captured `latest` bytes, under the same load. */
export interface Reference {
  /** The row's name. */
  name: string;
  /** Its script, given the captured response's file, a port and a log file. */
  script: string;
}

/** The bare node:http server: the most this rig can do. */
export const ceilingServer: Reference = {
  name: 'ceiling (node:http)',
  script: 'bench/ceiling-server.mjs',
};

/** A bare Fastify app logging each request as the service does: the framework's own share. */
export const fastifyServer: Reference = {
  name: 'bare Fastify, logging',
  script: 'bench/fastify-server.mjs',
};

/** A reference server, pinned like the service, under the same load as `latest`. */
export async function runReference(
  config: BenchConfig,
  reference: Reference,
  latest: CapturedResponse,
  apiKey: string,
  dir: string,
): Promise<Row> {
  const file = join(dir, 'latest-response.json');
  writeFileSync(file, JSON.stringify(latest));
  const port = await freePort();
  const server = spawnPinned(
    serverCore,
    process.execPath,
    [reference.script, file, String(port), join(dir, 'reference.log')],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  try {
    await new Promise<void>((resolve, reject) => {
      server.stdout?.once('data', () => resolve());
      server.once('exit', (code) => reject(new Error(`${reference.name} exited with ${code}`)));
    });
    const m = await measure({ serverPid: server.pid }, loadScript(config), {
      url: `http://127.0.0.1:${port}`,
      path: '/api/v1/consent-templates/privacy_policy/latest',
      method: 'GET',
      headers: { 'x-system-api-key': apiKey },
      connections: config.connections,
      warmupS: config.warmupS,
      durationS: config.durationS,
      customers: { known: 0, fresh: 1, width: customerIdWidth },
    });
    return row('-', null, reference.name, m);
  } finally {
    await stopProcess(server);
  }
}

/** PostgreSQL alone: bare INSERTs of decision rows from the load core (pg-insert-loop.mjs). */
export async function runInsertBaseline(
  config: BenchConfig,
  size: number,
  databaseUrl: string,
  table: string,
  f: Fixture,
  dbPid: number | null,
): Promise<Row> {
  const m = await measure({ dbPid }, 'bench/pg-insert-loop.mjs', {
    url: databaseUrl,
    table,
    clients: config.connections,
    warmupS: config.warmupS,
    durationS: config.durationS,
    row: {
      tenant_id: f.tenantId,
      template_id: f.templateId,
      consent_version_id: f.latest.id,
      version: f.latest.number,
      api_key_id: f.apiKeyId,
      content_sha256: f.latest.sha256,
    },
  });
  return {
    ...row('postgres', size, 'pg INSERT loop', m),
    notes: ['inserts/s of a bare pg INSERT loop into an empty copy of decisions'],
  };
}

/** Where a fixed-rate run stands when its load is over. */
interface FixedRateRun {
  /** A connection of the bench's own to the store. */
  db: Db;
  /** When the load began (ISO 8601): the decisions of this run were made since. */
  since: string;
  m: Measured;
}

/**
 * Decisions at `BENCH_RECEIPT_RATE` against a service started for the run, then `settle` reads
 * what followed into the run's row, while the service still runs.
 */
async function decisionsAtFixedRate(
  config: BenchConfig,
  databaseUrl: string,
  fixture: Fixture,
  size: number,
  logFile: string,
  dbPid: number | null,
  settle: (run: FixedRateRun) => Promise<Row>,
): Promise<Row> {
  const service = await startService(databaseUrl, logFile, {
    cpuProfileDir: config.cpuProfileDir,
  });
  const db = createDb(loadServiceConfig({ DATABASE_URL: databaseUrl, DATABASE_POOL_SIZE: '2' }));
  try {
    const since = new Date().toISOString();
    const load = {
      ...loadConfig(config, service.url, 'decisions', fixture, size),
      rate: config.receiptRate,
    };
    const measuring = { serverPid: service.pid, dbPid, loopDelayFile: service.loopDelayFile };
    const m = await measure(measuring, 'bench/load.mjs', load);
    const r = await settle({ db, since, m });
    if (r.errors > 0) r.notes.push(...logExcerpt(logFile));
    return r;
  } finally {
    await db.destroy();
    await service.stop();
  }
}

/**
 * Decisions at a fixed rate (`BENCH_RECEIPT_RATE`), then how long each waited to be appended to
 * the decision log, that is until its receipt was ready: `integrated_at - decided_at`, read from
 * the store once the queue is empty. The row's p50 and p99 are those waits; its req/s is the
 * decision rate reached.
 */
export function runReceiptLatency(
  config: BenchConfig,
  store: string,
  size: number,
  databaseUrl: string,
  fixture: Fixture,
  logFile: string,
  dbPid: number | null,
): Promise<Row> {
  return decisionsAtFixedRate(
    config,
    databaseUrl,
    fixture,
    size,
    logFile,
    dbPid,
    async ({ db, since, m }) => {
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline) {
        const queued = await db
          .selectFrom('tlog_pending')
          .select((eb) => eb.fn.countAll<number | string>().as('n'))
          .executeTakeFirstOrThrow();
        if (Number(queued.n) === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const appended = await db
        .selectFrom('tlog_entries as e')
        .innerJoin('decisions as d', (j) =>
          j.onRef('d.tenant_id', '=', 'e.log_id').onRef('d.id', '=', 'e.record_id'),
        )
        .select(['d.decided_at', 'e.integrated_at'])
        .where('d.decided_at', '>=', since)
        .execute();
      const waits = appended
        .map((r) => Date.parse(r.integrated_at) - Date.parse(r.decided_at))
        .sort((a, b) => a - b);
      const at = (q: number) =>
        waits[Math.min(waits.length - 1, Math.floor(q * waits.length))] ?? 0;
      const r = row(store, size, `receipt ready, ${config.receiptRate}/s`, m);
      r.p50Ms = at(0.5);
      r.p99Ms = at(0.99);
      r.receipts = { count: waits.length, maxMs: waits.at(-1) ?? 0, decisionP99Ms: m.load.p99Ms };
      return r;
    },
  );
}

/**
 * Decisions at the receipt run's fixed rate with one webhook endpoint taking every one of them:
 * a receiver in its own process on the load core (bench/webhook-receiver.mjs) verifies each
 * signature and answers 204. The row's p50 and p99 are the waits from each decision to its
 * delivery; its server CPU per decision, beside the receipt run's (the same rate, no endpoint),
 * is what sending the webhooks costs.
 */
export async function runWebhookDelivery(
  config: BenchConfig,
  store: string,
  size: number,
  databaseUrl: string,
  fixture: Fixture,
  logFile: string,
  dbPid: number | null,
): Promise<Row> {
  const port = await freePort();
  const secret = await createWebhookEndpoint(databaseUrl, `http://127.0.0.1:${port}/hook`);
  const receiver = spawnPinned(
    loadCore,
    process.execPath,
    ['bench/webhook-receiver.mjs', JSON.stringify({ port, secret })],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const receiverUrl = `http://127.0.0.1:${port}`;
  await new Promise<void>((resolve, reject) => {
    receiver.stdout?.once('data', () => resolve());
    receiver.once('exit', (code) => reject(new Error(`the webhook receiver exited with ${code}`)));
  });
  const summaryOf = async (since: string) =>
    (await (await fetch(`${receiverUrl}/summary?since=${since}`)).json()) as {
      unique: number;
      attempts: number;
      invalid: number;
      p50Ms: number;
      p99Ms: number;
      maxMs: number;
    };
  try {
    return await decisionsAtFixedRate(
      config,
      databaseUrl,
      fixture,
      size,
      logFile,
      dbPid,
      async ({ db, since, m }) => {
        // Counted again on each look: requests still in flight when the load stopped may
        // commit after it.
        const decidedSince = async () =>
          Number(
            (
              await db
                .selectFrom('decisions')
                .select((eb) => eb.fn.countAll<number | string>().as('n'))
                .where('decided_at', '>=', since)
                .executeTakeFirstOrThrow()
            ).n,
          );
        let delivered = await summaryOf(since);
        let expected = await decidedSince();
        const deadline = Date.now() + 60_000;
        while (delivered.unique < expected && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 200));
          delivered = await summaryOf(since);
          expected = await decidedSince();
        }
        const r = row(store, size, `webhooks, ${config.receiptRate}/s`, m);
        r.p50Ms = delivered.p50Ms;
        r.p99Ms = delivered.p99Ms;
        r.webhooks = {
          decisions: expected,
          delivered: delivered.unique,
          attempts: delivered.attempts,
          invalid: delivered.invalid,
          maxMs: delivered.maxMs,
          decisionP99Ms: m.load.p99Ms,
        };
        return r;
      },
    );
  } finally {
    await stopProcess(receiver);
  }
}
