import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig as loadServiceConfig } from '../src/platform/config.js';
import { createDb, type Db } from '../src/platform/db.js';
import { entryOfRecord, resolveLogKey } from '../src/platform/log-key.js';
import { freePort } from '../test/helpers/postgres-server.js';
import type { BenchConfig, Endpoint } from './config.js';
import {
  bannerPath,
  checkChoiceRecorded,
  choiceRequest,
  choicesPath,
  storedChoices,
} from './cookies.js';
import {
  type CookieFixture,
  customerId,
  customerIdWidth,
  type Fixture,
  freshCustomers,
} from './dataset.js';
import { loadScript, logExcerpt, type Measured, measure, row } from './measure.js';
import { startOutsideParties } from './outside.js';
import { loadCore, serverCore, spawnPinned, stopProcess } from './processes.js';
import type { Row } from './report.js';
import {
  type CapturedResponse,
  capture,
  createWebhookEndpoint,
  type Placement,
  startService,
} from './service.js';

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
    // A support tool's look at one customer: where they stand and their decisions, one page.
    case 'history':
      return { ...common, path: '/api/v1/customers/{customer}/consents?limit=50' };
    case 'decisions':
    case 'decisions-witnessed':
      return {
        ...common,
        method: 'POST',
        headers: { ...common.headers, 'content-type': 'application/json' },
        path: '/api/v1/customers/{customer}/consents/decisions',
        body: JSON.stringify({ consent_version_id: f.latest.id, decision: 'given' }),
      };
    // Each request a new customer (`{uuid}`, bench/wrk.lua), whose e-mail is blocked: a change
    // recorded (201) every time, never the 200 of a channel already blocked.
    case 'channel-changes':
      return {
        ...common,
        method: 'PUT',
        headers: { ...common.headers, 'content-type': 'application/json' },
        path: channelPath(f, 'b-{uuid}'),
        body: channelBody,
      };
    // A site's page fetching the script: no key, no customer.
    case 'banner':
      return { ...common, headers: {}, path: bannerPath(cookiesOf(f)) };
    case 'cookie-choices':
      return {
        ...common,
        method: 'POST',
        ...choiceRequest(cookiesOf(f)),
        path: choicesPath(cookiesOf(f)),
      };
    // bench/bulk-load.mjs puts the request's ids in place of "{ids}".
    case 'bulk-status':
      return {
        ...common,
        connections: config.bulkConnections,
        ids: config.bulkIds,
        method: 'POST',
        headers: { ...common.headers, 'content-type': 'application/json' },
        path: '/api/v1/consents/status',
        body: JSON.stringify({ template_code: f.templateCode, customer_ids: '{ids}' }),
      };
  }
}

function channelPath(f: Fixture, customer: string): string {
  return `/api/v1/customers/${customer}/channels/${f.productCode}/email`;
}

const channelBody = JSON.stringify({ blocked: true });

/** One change before the load: it must be recorded (`201`), or the load would measure refusals. */
async function checkChannelChanged(url: string, f: Fixture): Promise<void> {
  const response = await fetch(`${url}${channelPath(f, `b-${randomUUID()}`)}`, {
    method: 'PUT',
    headers: { 'x-system-api-key': f.apiKey, 'content-type': 'application/json' },
    body: channelBody,
  });
  if (response.status !== 201) {
    throw new Error(`a channel change answered ${response.status}: ${await response.text()}`);
  }
}

function cookiesOf(f: Fixture): CookieFixture {
  if (!f.cookies) throw new Error('the cookie endpoints need a store made with a cookie system');
  return f.cookies;
}

export interface EndpointRun {
  row: Row;
  /** The first run captures a real `latest` response for the ceiling. */
  latest: CapturedResponse;
  /** A `banner` run captures the script's response, for bare node:http to serve. */
  banner?: CapturedResponse;
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
  const outside = endpoint === 'decisions-witnessed' ? await startOutsideParties() : undefined;
  const service = await startService(databaseUrl, logFile, {
    placement,
    env: { ...(withMetrics ? { METRICS_TOKEN: scrapeToken } : {}), ...(outside?.env ?? {}) },
    cpuProfileDir: config.cpuProfileDir,
    core: config.serviceCore,
  }).catch(async (error) => {
    await outside?.stop();
    throw error;
  });
  // As Prometheus would, but every second: the scrapes' cost shows in the row.
  const scraper = withMetrics ? scrapeEverySecond(service.url) : undefined;
  try {
    const base = `${service.url}/api/v1/consent-templates/${fixture.templateCode}/latest`;
    const latest = await capture(base, { 'x-system-api-key': fixture.apiKey });
    if (latest.status !== 200) throw new Error(`latest answered ${latest.status}`);
    if (endpoint === 'pending') await checkLoadedData(service.url, fixture, size);
    if (endpoint === 'bulk-status') await checkBulkStatus(service.url, fixture, size);
    if (endpoint === 'history') await checkHistory(service.url, fixture, size);
    const banner =
      endpoint === 'banner'
        ? await capture(`${service.url}${bannerPath(cookiesOf(fixture))}`, {})
        : undefined;
    if (banner && banner.status !== 200) throw new Error(`banner.js answered ${banner.status}`);
    const choicesBefore =
      endpoint === 'cookie-choices' ? await storedChoices(databaseUrl) : undefined;
    if (endpoint === 'cookie-choices') await checkChoiceRecorded(service.url, cookiesOf(fixture));
    if (endpoint === 'channel-changes') await checkChannelChanged(service.url, fixture);
    const load = loadConfig(config, service.url, endpoint, fixture, size);
    const measuring = {
      serverPid: service.pid,
      dbPid,
      loadCores: placement?.cores,
      loopDelayFile: service.loopDelayFile,
    };
    const script = endpoint === 'bulk-status' ? 'bench/bulk-load.mjs' : loadScript(config);
    const m = await measure(measuring, script, load);
    const r = row(store, size, endpoint, m);
    if (placement) {
      r.workers = placement.workers;
      r.cores = String(placement.cores);
    }
    if (choicesBefore !== undefined) {
      r.choices = recordedChoices(m, (await storedChoices(databaseUrl)) - choicesBefore);
    }
    if (r.errors > 0 || r.warmupErrors > 0) r.notes.push(...logExcerpt(logFile));
    if (outside) r.notes.push(await witnessedSoFar(service.url, fixture));
    return { row: r, latest, ...(banner ? { banner } : {}) };
  } finally {
    await scraper?.stop();
    await service.stop();
    await outside?.stop();
  }
}

/** How far the witnesses kept up: the newest checkpoint both cosigned against the log's size. */
async function witnessedSoFar(url: string, fixture: Fixture): Promise<string> {
  const response = await fetch(`${url}/api/v1/log/checkpoint`, {
    headers: { 'x-system-api-key': fixture.apiKey },
  });
  const { data } = (await response.json()) as {
    data: { size: number; cosigned_checkpoint?: string };
  };
  const cosigned = Number(data.cosigned_checkpoint?.split('\n')[1] ?? 0);
  return `witnessed: ${cosigned.toLocaleString('en-US')} of ${data.size.toLocaleString('en-US')} leaves cosigned by both witnesses at the end of the run`;
}

/**
 * A run's new choices in the store against its successful answers (warm-up, the check and the
 * measured part): each answer is a new visitor's first choice, so the store must hold at least as
 * many (a request cut off when the load stopped may be recorded unanswered). Fewer means some
 * answers were retries' `200`s: the fresh ids were not fresh.
 */
function recordedChoices(m: Measured, stored: number): { answered: number; stored: number } {
  const ok = (l: { requests: number; non2xx: number }) => l.requests - l.non2xx;
  return { answered: 1 + ok(m.load) + (m.load.warmup ? ok(m.load.warmup) : 0), stored };
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

/**
 * A customer's history must read the generated decisions: a known customer has their two, the
 * newest first (an even one `given` then `given`, an odd one `withdraw` then `given`), a fresh
 * one none.
 */
async function checkHistory(url: string, f: Fixture, size: number): Promise<void> {
  const expectations: [string, string[]][] = [['f000000000', []]];
  if (size > 0) {
    expectations.push([customerId(0), ['given', 'given']], [customerId(1), ['withdraw', 'given']]);
  }
  for (const [customer, decisions] of expectations) {
    const response = await fetch(`${url}/api/v1/customers/${customer}/consents?limit=50`, {
      headers: { 'x-system-api-key': f.apiKey },
    });
    const body = (await response.json()) as { data?: { history: { decision: string }[] } };
    const seen = body.data?.history.map((entry) => entry.decision);
    if (JSON.stringify(seen) !== JSON.stringify(decisions)) {
      throw new Error(`the history of ${customer} answered ${JSON.stringify(body)}`);
    }
  }
}

/**
 * The status of many customers must read the generated history as `pending` does: a known even
 * customer accepted the latest version (`given`), an odd one did not (their last decision a
 * `withdraw` on the older), a fresh one was never asked.
 */
async function checkBulkStatus(url: string, f: Fixture, size: number): Promise<void> {
  const ids = ['f000000000', ...(size > 0 ? [customerId(0), customerId(1)] : [])];
  const response = await fetch(`${url}/api/v1/consents/status`, {
    method: 'POST',
    headers: { 'x-system-api-key': f.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ template_code: f.templateCode, customer_ids: ids }),
  });
  const body = (await response.json()) as {
    data?: { customers: { accepted: boolean; last_decision: { decision: string } | null }[] };
  };
  const seen = body.data?.customers.map((c) => [c.accepted, c.last_decision?.decision ?? null]);
  const expected = [
    [false, null],
    ...(size > 0
      ? [
          [true, 'given'],
          [false, 'withdraw'],
        ]
      : []),
  ];
  if (JSON.stringify(seen) !== JSON.stringify(expected)) {
    throw new Error(`status answered ${response.status} ${JSON.stringify(body).slice(0, 500)}`);
  }
}

/** A reference server answering a captured response's bytes, under the same load. */
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

/** The banner's baseline: bare node:http answering the script's very bytes and headers. */
export const bareBanner: Reference = {
  name: 'banner, bare node:http',
  script: 'bench/ceiling-server.mjs',
};

/** Bare Fastify with the service's log line, answering the same: the framework's share of it. */
export const bannerFastify: Reference = {
  name: 'banner, bare Fastify, logging',
  script: 'bench/fastify-server.mjs',
};

/** What a reference row measures: the captured response, the request it answers, its label. */
export interface ReferenceRun {
  captured: CapturedResponse;
  path: string;
  headers: Record<string, string>;
  /** The row's store and size: the group it belongs to (`-` for the ceiling's). */
  store: string;
  size: number | null;
}

/** The `latest` request, for the ceiling and bare Fastify. */
export function latestReference(latest: CapturedResponse, f: Fixture): ReferenceRun {
  return {
    captured: latest,
    path: `/api/v1/consent-templates/${f.templateCode}/latest`,
    headers: { 'x-system-api-key': f.apiKey },
    store: '-',
    size: null,
  };
}

/** A reference server, pinned like the service, under the same load as the row it serves. */
export async function runReference(
  config: BenchConfig,
  reference: Reference,
  run: ReferenceRun,
  dir: string,
): Promise<Row> {
  const file = join(dir, 'reference-response.json');
  writeFileSync(file, JSON.stringify(run.captured));
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
      path: run.path,
      method: 'GET',
      headers: run.headers,
      connections: config.connections,
      warmupS: config.warmupS,
      durationS: config.durationS,
      customers: { known: 0, fresh: 1, width: customerIdWidth },
    });
    return row(run.store, run.size, reference.name, m);
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
      const key = await resolveLogKey(db);
      const appended = await db
        .selectFrom('tlog_entries as e')
        .innerJoin('decisions as d', (j) => j.on(entryOfRecord(key, 'e', 'd.tenant_id', 'd.id')))
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
