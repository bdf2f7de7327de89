// `npm run bench`: loads the service on both stores at several data sizes and prints how it
// compares with a bare node:http server (the ceiling). See bench/README.md.
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type BenchConfig,
  bulkEndpoint,
  cookieEndpoints,
  firstSizeEndpoints,
  loadBenchConfig,
  type Store,
} from './config.js';
import { bannerPath } from './cookies.js';
import type { Fixture } from './dataset.js';
import {
  type BenchPostgres,
  dropDatabase,
  durability,
  recreateDatabase,
  startBenchPostgres,
} from './postgres.js';
import { firstCores, loadCore, serverCore, stopAll, unpinnedReason } from './processes.js';
import {
  dbUsPerRequest,
  formatSteps,
  formatTable,
  machineFacts,
  type Row,
  type Step,
  serverUsPerRequest,
  writeJson,
} from './report.js';
import {
  bannerFastify,
  bareBanner,
  ceilingServer,
  fastifyServer,
  latestReference,
  runEndpoint,
  runInsertBaseline,
  runReceiptLatency,
  runReference,
  runWebhookDelivery,
} from './runs.js';
import { createDecisionsCopy, loadPostgres } from './seed-postgres.js';
import { loadSqlite } from './seed-sqlite.js';
import { createFixture, partitionStore } from './service.js';
import {
  bytesPerRecord,
  describeBytes,
  describeHotSet,
  hotSetObjects,
  readHotSet,
  recordsOf,
  storeBytes,
} from './storage.js';

const config = loadBenchConfig();
const dir = mkdtempSync(join(tmpdir(), 'consent-bench-'));
const steps: Step[] = [];
const rows: Row[] = [];
const notes: string[] = [];
let postgres: BenchPostgres | undefined;
let ceiling: Row | undefined;
/** Size of the captured `latest` body the ceiling answers with. */
let latestBytes: number | null = null;
const began = Date.now();
/**
 * The cores the workers group's service and load generator share: as many as its largest
 * `WORKERS`, at least the two the other runs use, at most the machine's.
 */
const groupCores = firstCores(Math.min(availableParallelism(), Math.max(2, ...config.workers)));

/** Runs one step, saying on stderr what it does and how long it took. */
async function step<T>(name: string, work: () => Promise<T> | T): Promise<T> {
  process.stderr.write(`- ${name} ...\n`);
  const started = performance.now();
  const result = await work();
  const seconds = (performance.now() - started) / 1000;
  steps.push({ name, seconds });
  process.stderr.write(`  ${name}: ${seconds.toFixed(1)} s\n`);
  return result;
}

/** A store's file or database name: `tag` tells apart stores of the same size. */
function storeName(size: number, tag: string): string {
  return tag ? `${size}_${tag}` : String(size);
}

/** Whether a run of the store at `size` measures the cookie endpoints: its first size only. */
function cookiesAt(size: number): boolean {
  return size === config.sizes[0] && config.endpoints.some((e) => cookieEndpoints.includes(e));
}

/**
 * A fresh store with the fixture and `size` generated decisions; with `cookies`, a website with
 * a published banner too.
 */
async function prepare(
  store: Store,
  size: number,
  { tag = '', cookies = false }: { tag?: string; cookies?: boolean } = {},
): Promise<{ url: string; fixture: Fixture }> {
  const label = `${store} ${size.toLocaleString('en-US')}${tag ? ` (${tag})` : ''}`;
  const name = storeName(size, tag);
  const url =
    store === 'sqlite'
      ? join(dir, `sqlite-${name}.db`)
      : await recreateDatabase(requirePostgres().adminUrl, `consent_bench_${name}`);
  const fixture = await step(`${label}: schema + fixture (command line)`, () =>
    createFixture(url, { cookies, contentBytes: config.contentBytes }),
  );
  if (size > 0) {
    await step(`${label}: bulk load`, () =>
      store === 'sqlite' ? loadSqlite(url, fixture, size) : loadPostgres(url, fixture, size),
    );
  }
  const { partition } = config;
  if (store === 'postgres' && partition) {
    await step(`${label}: store partition --interval ${partition}`, () =>
      partitionStore(url, partition),
    );
  }
  return { url, fixture };
}

async function discard(store: Store, size: number, url: string, tag = ''): Promise<void> {
  if (store === 'postgres') {
    await dropDatabase(requirePostgres().adminUrl, `consent_bench_${storeName(size, tag)}`);
    return;
  }
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${url}${suffix}`, { force: true });
}

/** The embedded PostgreSQL's postmaster while PostgreSQL runs, to count its CPU. */
function dbPid(): number | null {
  return postgres?.postmasterPid ?? null;
}

function requirePostgres(): BenchPostgres {
  if (!postgres) throw new Error('PostgreSQL is not started');
  return postgres;
}

/**
 * `decisions` with the witnesses and the TSA, on a store of its own: `decisions` grew the
 * shared one by the decisions it recorded, which alone makes a run after it slower (an
 * ordering effect of about a fifth in req/s, measured with no outside party configured).
 */
async function witnessedRun(store: Store, size: number): Promise<Row> {
  const { url, fixture } = await prepare(store, size, { tag: 'witnessed' });
  try {
    const logFile = join(dir, `${store}-${size}-decisions-witnessed.log`);
    const run = await step(`${store} ${size.toLocaleString('en-US')}: decisions-witnessed`, () =>
      runEndpoint(config, store, size, url, fixture, 'decisions-witnessed', logFile, dbPid()),
    );
    return run.row;
  } finally {
    await discard(store, size, url, 'witnessed');
  }
}

async function benchStore(store: Store): Promise<void> {
  if (store === 'postgres') {
    postgres = await step('start PostgreSQL', () =>
      startBenchPostgres(config.databaseUrl, config.postgresSettings),
    );
    notes.push(`PostgreSQL: ${postgres.pinning}; ${await durability(postgres.adminUrl)}`);
    if (!config.databaseUrl && config.postgresSettings.length > 0) {
      notes.push(`PostgreSQL settings: ${config.postgresSettings.join(', ')}`);
    }
    if (config.partition) notes.push(`PostgreSQL tables partitioned by ${config.partition}`);
  }
  for (const size of config.sizes) {
    const cookies = cookiesAt(size);
    const { url, fixture } = await prepare(store, size, { cookies });
    const label = `${store} ${size.toLocaleString('en-US')}`;
    let decisions: Row | undefined;
    if (size > 0) {
      const atRest = await step(`${label}: storage`, () => storeBytes(store, url));
      const tables = [...atRest.tables].map(
        ([name, bytes]) => [name, bytes / atRest.counts.decisions] as [string, number],
      );
      tables.sort((a, b) => b[1] - a[1]);
      notes.push(
        `storage ${label}, bulk-loaded (no decision log): ${describeBytes(atRest.total / atRest.counts.decisions, tables, 'decisions')}`,
      );
      notes.push(`storage ${label}, what pending reads: ${describeHotSet(store, atRest)}`);
      if (config.hotSet !== 'cold') {
        const names = hotSetObjects(store, config.hotSet, config.endpoints);
        const what = config.hotSet === 'read' ? 'what pending reads' : 'what the reads read';
        const read = await step(`${label}: ${what}, read once`, () =>
          readHotSet(store, url, names),
        );
        notes.push(
          `${label}: ${(read / 1_048_576).toFixed(0)} MB of ${what} read once before the runs (${names.join(', ')})`,
        );
      }
    }
    for (const endpoint of config.endpoints) {
      if (!cookies && cookieEndpoints.includes(endpoint)) continue;
      if (size !== config.sizes[0] && firstSizeEndpoints.includes(endpoint)) continue;
      if (endpoint === 'decisions-witnessed') {
        if (size === config.sizes[0]) rows.push(await witnessedRun(store, size));
        continue;
      }
      const logFile = join(dir, `${store}-${size}-${endpoint}.log`);
      const kind = recordsOf[endpoint];
      const before = kind ? await storeBytes(store, url) : undefined;
      const run = await step(`${label}: ${endpoint}`, () =>
        runEndpoint(config, store, size, url, fixture, endpoint, logFile, dbPid()),
      );
      rows.push(run.row);
      if (endpoint === 'decisions') decisions = run.row;
      if (kind && before) {
        // What each record the service recorded added, its log's leaves and nodes included.
        const added = bytesPerRecord(before, await storeBytes(store, url), kind);
        if (added) {
          notes.push(
            `storage ${label}, recorded by the service: ${describeBytes(added.perRecord, added.tables, kind)}`,
          );
        }
      }
      if (!ceiling) {
        latestBytes = Buffer.from(run.latest.bodyBase64, 'base64').length;
        const latest = latestReference(run.latest, fixture);
        ceiling = await step(ceilingServer.name, () =>
          runReference(config, ceilingServer, latest, dir),
        );
        ceiling.vsCeiling = 1;
        rows.push(
          await step(fastifyServer.name, () => runReference(config, fastifyServer, latest, dir)),
        );
      }
      // Right after the banner's own run, so that noise from outside the bench hits them alike.
      const { banner } = run;
      const site = fixture.cookies;
      if (banner && site) {
        const reference = { captured: banner, path: bannerPath(site), headers: {}, store, size };
        const bare = await step(`${label}: ${bareBanner.name}`, () =>
          runReference(config, bareBanner, reference, dir),
        );
        const framework = await step(`${label}: ${bannerFastify.name}`, () =>
          runReference(config, bannerFastify, reference, dir),
        );
        run.row.vsBare = run.row.rps / bare.rps;
        framework.vsBare = framework.rps / bare.rps;
        rows.push(bare, framework);
      }
    }
    if (config.receiptRate > 0 && size === config.sizes[0]) {
      const logFile = join(dir, `${store}-${size}-receipts.log`);
      rows.push(
        await step(`${label}: receipts at ${config.receiptRate}/s`, () =>
          runReceiptLatency(config, store, size, url, fixture, logFile, dbPid()),
        ),
      );
      const hooksLog = join(dir, `${store}-${size}-webhooks.log`);
      rows.push(
        await step(`${label}: webhooks at ${config.receiptRate}/s`, () =>
          runWebhookDelivery(config, store, size, url, fixture, hooksLog, dbPid()),
        ),
      );
    }
    if (store === 'postgres' && decisions) {
      rows.push(await againstInsertLoop(label, size, url, fixture, decisions));
    }
    await step(`${label}: drop store`, () => discard(store, size, url));
  }
  if (config.workers.length > 0) await benchWorkers(store);
  if (postgres) {
    await step('stop PostgreSQL', () => postgres?.remove());
    postgres = undefined;
  }
}

/**
 * The bare INSERT loop right after `decisions` (the row that run made), then as many more rounds
 * of the two as `BENCH_LOOP_ROUNDS` asks, each round in the other order than the one before, so
 * that neither always runs on the store the other grew. `decisions` gets the median of the
 * rounds' ratios; the loop's row returned is the first round's.
 */
async function againstInsertLoop(
  label: string,
  size: number,
  url: string,
  fixture: Fixture,
  decisions: Row,
): Promise<Row> {
  const table = await createDecisionsCopy(url);
  const loop = (round: number) =>
    step(`${label}: pg INSERT loop${round > 1 ? ` (round ${round})` : ''}`, () =>
      runInsertBaseline(config, size, url, table, fixture, dbPid()),
    );
  const decide = async (round: number) => {
    const logFile = join(dir, `postgres-${size}-decisions-round-${round}.log`);
    const run = await step(`${label}: decisions (round ${round})`, () =>
      runEndpoint(config, 'postgres', size, url, fixture, 'decisions', logFile, dbPid()),
    );
    return run.row;
  };
  const first = await loop(1);
  const rounds = [{ decisions, loop: first }];
  for (let round = 2; round <= config.loopRounds; round++) {
    // Even rounds start with the loop, odd ones (as the first) with decisions.
    const loopedFirst = round % 2 === 0 ? await loop(round) : undefined;
    const decided = await decide(round);
    rounds.push({ decisions: decided, loop: loopedFirst ?? (await loop(round)) });
  }
  const byRps = rounds.map((r) => r.decisions.rps / r.loop.rps);
  const byDbCpu = rounds.map((r) => dbUsPerRequest(r.loop) / dbUsPerRequest(r.decisions));
  decisions.vsInsert = median(byRps);
  decisions.vsInsertDbCpu = median(byDbCpu);
  if (rounds.length > 1) {
    const each = (ratios: number[]) => ratios.map((x) => x.toFixed(2)).join(', ');
    notes.push(
      `${label}: decisions against the INSERT loop in ${rounds.length} rounds (decisions/s against inserts/s: ${rounds.map((r) => `${r.decisions.rps.toFixed(0)}/${r.loop.rps.toFixed(0)}`).join(', ')}): by req/s ${each(byRps)}, median ${median(byRps).toFixed(2)}; by the database's CPU ${each(byDbCpu)}, median ${median(byDbCpu).toFixed(2)}`,
    );
  }
  return first;
}

/** The middle value (the mean of the two middle ones for an even count). */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * The workers group: each endpoint with `WORKERS=1`, then with each larger count, one right after
 * the other so that noise from outside the bench hits them alike; each count on an empty store of
 * its own, so that one count's decisions do not grow the other's store. The service, the load
 * generator and PostgreSQL all share the same cores: the worker count is the only difference.
 */
async function benchWorkers(store: Store): Promise<void> {
  const stores: { workers: number; tag: string; url: string; fixture: Fixture }[] = [];
  for (const workers of config.workers) {
    const tag = `w${workers}`;
    stores.push({ workers, tag, ...(await prepare(store, 0, { tag })) });
  }
  const moved = postgres?.pin(groupCores);
  if (moved) notes.push(`PostgreSQL in the workers group: ${moved}`);
  try {
    const grouped = config.endpoints.filter(
      (e) => !firstSizeEndpoints.includes(e) && e !== bulkEndpoint && e !== 'decisions-witnessed',
    );
    for (const endpoint of grouped) {
      let one: number | undefined;
      for (const { workers, url, fixture } of stores) {
        const logFile = join(dir, `${store}-workers-${workers}-${endpoint}.log`);
        const placement = { workers, cores: groupCores };
        const run = await step(`${store} 0: ${endpoint} WORKERS=${workers}`, () =>
          runEndpoint(config, store, 0, url, fixture, endpoint, logFile, dbPid(), placement),
        );
        one ??= run.row.rps;
        run.row.vsOneWorker = run.row.rps / one;
        rows.push(run.row);
      }
    }
  } finally {
    postgres?.pin(serverCore);
  }
  for (const { tag, url } of stores) {
    await step(`${store} 0 (${tag}): drop store`, () => discard(store, 0, url, tag));
  }
}

/** Which core runs what, for the header. */
function pinning(c: BenchConfig): string {
  if (unpinnedReason) return `NONE (${unpinnedReason})`;
  const load = `load generator on core ${loadCore}`;
  if (c.serviceCore === serverCore) return `server + database on core ${serverCore}, ${load}`;
  return `database on core ${serverCore}, server + ${load} (BENCH_SERVICE_CORE=${c.serviceCore})`;
}

function printHeader(c: BenchConfig, machine: Record<string, string | number>): void {
  const lines = [
    'consent-service benchmark',
    ...Object.entries(machine).map(([k, v]) => `  ${k}: ${v}`),
    `  pinning: ${pinning(c)}`,
    `  runs: ${c.connections} connections, ${c.warmupS} s warm-up + ${c.durationS} s measured; ` +
      `stores ${c.stores.join(',')}; sizes ${c.sizes.join(',')}; endpoints ${c.endpoints.join(',')}` +
      (c.contentBytes > 0
        ? `; consent texts of ${c.contentBytes.toLocaleString('en-US')} bytes`
        : ''),
    `  load generator: ${c.loadGenerator === 'wrk' ? 'wrk (one thread)' : 'autocannon (wrk is not installed: apt-get install wrk)'}; fixed-rate runs: autocannon`,
    `  workers group: ${
      c.workers.length === 0
        ? 'none'
        : `WORKERS=${c.workers.join(',')} on an empty store, server + database + load generator ` +
          `${unpinnedReason ? 'unpinned' : `sharing cores ${groupCores}`}`
    }`,
  ];
  process.stdout.write(`${lines.join('\n')}\n\n`);
  if (unpinnedReason) process.stderr.write(`WARNING: running unpinned: ${unpinnedReason}\n`);
  // Only where the bench pins PostgreSQL beside the service: a server of BENCH_DATABASE_URL is not.
  const shared = c.stores.includes('postgres') && !c.databaseUrl && !unpinnedReason;
  if (machine.schedAutogroup === 'on' && shared) {
    process.stderr.write(
      'WARNING: kernel.sched_autogroup_enabled is 1: PostgreSQL rows may show a tail of up to a ' +
        'second that is the kernel\'s (bench/README.md, "How it runs"); ' +
        'echo 0 > /proc/sys/kernel/sched_autogroup_enabled to measure without it\n',
    );
  }
}

/** What /metrics costs `latest`: each `latest-metrics` row beside its `latest` of the same run. */
function metricsCost(all: Row[]): string[] {
  return all.flatMap((r) => {
    if (r.endpoint !== 'latest-metrics') return [];
    const plain = all.find(
      (p) =>
        p.endpoint === 'latest' &&
        p.store === r.store &&
        p.size === r.size &&
        p.workers === r.workers,
    );
    if (!plain) return [];
    return [
      `${label(r)}: ${(r.rps / plain.rps).toFixed(3)} of latest's req/s; server CPU ${serverUsPerRequest(r).toFixed(1)} µs a request with metrics, ${serverUsPerRequest(plain).toFixed(1)} without`,
    ];
  });
}

/** What witnesses and a TSA cost decisions: each `decisions-witnessed` row beside its `decisions`. */
function witnessedCost(all: Row[]): string[] {
  return all.flatMap((r) => {
    if (r.endpoint !== 'decisions-witnessed') return [];
    const plain = all.find(
      (p) =>
        p.endpoint === 'decisions' &&
        p.store === r.store &&
        p.size === r.size &&
        p.workers === r.workers,
    );
    if (!plain) return [];
    return [
      `${label(r)}: with two witnesses and a TSA, ${(r.rps / plain.rps).toFixed(3)} of decisions' req/s; p99 ${r.p99Ms.toFixed(1)} ms against ${plain.p99Ms.toFixed(1)} ms; server CPU ${serverUsPerRequest(r).toFixed(1)} µs a request, ${serverUsPerRequest(plain).toFixed(1)} without`,
    ];
  });
}

/**
 * What the public cookie endpoints cost: the banner beside bare node:http serving its bytes, and
 * a visitor's choice beside a customer's decision on the same store, in the same run.
 */
function cookieCost(all: Row[]): string[] {
  return all.flatMap((r) => {
    if (r.endpoint === 'banner') {
      const same = (name: string) =>
        all.find((b) => b.endpoint === name && b.store === r.store && b.size === r.size);
      const bare = same(bareBanner.name);
      const framework = same(bannerFastify.name);
      if (!bare || !framework) return [];
      return [
        `${label(r)}: ${(r.rps / bare.rps).toFixed(3)} of bare node:http's req/s serving the same bytes (bare Fastify with the log line: ${(framework.rps / bare.rps).toFixed(3)}); server CPU ${serverUsPerRequest(r).toFixed(1)} µs a request, ${serverUsPerRequest(bare).toFixed(1)} for bare node:http, ${serverUsPerRequest(framework).toFixed(1)} for bare Fastify`,
      ];
    }
    if (r.endpoint === 'cookie-choices' || r.endpoint === 'channel-changes') {
      const one = r.endpoint === 'cookie-choices' ? 'a choice' : 'a change';
      const decided = all.find(
        (d) =>
          d.endpoint === 'decisions' &&
          d.store === r.store &&
          d.size === r.size &&
          d.workers === undefined,
      );
      if (!decided) return [];
      return [
        `${label(r)}: ${(r.rps / decided.rps).toFixed(3)} of decisions' req/s; server CPU ${serverUsPerRequest(r).toFixed(1)} µs ${one}, ${serverUsPerRequest(decided).toFixed(1)} a decision${r.dbCpu === null ? '' : `; database CPU ${dbUsPerRequest(r).toFixed(1)} µs ${one}, ${dbUsPerRequest(decided).toFixed(1)} a decision`}`,
      ];
    }
    return [];
  });
}

/**
 * PostgreSQL decisions against the bare INSERT loop: by req/s (the target), and by the
 * database's CPU a record. The bench's service and database share one core, while the loop's
 * client leaves that core to the database; the second ratio is what decisions would reach with
 * the service's instances on cores of their own, the database's CPU then the limit.
 */
function insertCost(all: Row[]): string[] {
  return all.flatMap((r) => {
    if (r.vsInsert === undefined || r.vsInsertDbCpu === undefined) return [];
    const loop = all.find((b) => b.endpoint === 'pg INSERT loop' && b.size === r.size);
    if (!loop) return [];
    const rounds = config.loopRounds > 1 ? ` (median of ${config.loopRounds} rounds)` : '';
    return [
      `${label(r)}: ${r.vsInsert.toFixed(2)}${rounds} of the bare INSERT loop's req/s; database CPU ${dbUsPerRequest(r).toFixed(0)} µs a decision against ${dbUsPerRequest(loop).toFixed(0)} µs an insert of the loop${rounds ? ' in the first round' : ''}: ${r.vsInsertDbCpu.toFixed(2)}${rounds} of its records a second of the database's CPU`,
    ];
  });
}

/** The status of many customers: its p95, and the CPU it costs per request and per id. */
function bulkCost(all: Row[], c: BenchConfig): string[] {
  return all.flatMap((r) => {
    if (r.endpoint !== bulkEndpoint) return [];
    const server = serverUsPerRequest(r);
    return [
      `${label(r)}: ${c.bulkIds} ids a request from ${c.bulkConnections} connections, p95 ${(r.p95Ms ?? Number.NaN).toFixed(1)} ms; server CPU ${(server / 1000).toFixed(1)} ms a request (${(server / c.bulkIds).toFixed(1)} µs an id)${r.dbCpu === null ? '' : `, database CPU ${(dbUsPerRequest(r) / 1000).toFixed(1)} ms a request`}`,
    ];
  });
}

/** What sending webhooks costs: each webhook row beside the receipt row of the same rate. */
function webhookCost(all: Row[]): string[] {
  return all.flatMap((r) => {
    if (!r.webhooks) return [];
    const plain = all.find((p) => p.receipts && p.store === r.store && p.size === r.size);
    if (!plain) return [];
    return [
      `${label(r)}: server CPU ${serverUsPerRequest(r).toFixed(1)} µs a decision with an endpoint taking every decision, ${serverUsPerRequest(plain).toFixed(1)} without (the receipt run, same rate)`,
    ];
  });
}

/** "sqlite 100,000 pending", "sqlite 0 latest WORKERS=2", or the ceiling's name. */
function label(r: Row): string {
  const endpoint = r.workers === undefined ? r.endpoint : `${r.endpoint} WORKERS=${r.workers}`;
  return r.size === null ? endpoint : `${r.store} ${r.size.toLocaleString('en-US')} ${endpoint}`;
}

/** What makes a row doubtful, said under the table. */
function rowNotes(r: Row): string[] {
  const found: string[] = [];
  if (r.receipts) {
    found.push(
      `${label(r)}: p50 and p99 are the waits until ${r.receipts.count.toLocaleString('en-US')} receipts were ready (longest ${r.receipts.maxMs} ms); the decisions themselves answered with p99 ${r.receipts.decisionP99Ms} ms`,
    );
  }
  if (r.webhooks) {
    const w = r.webhooks;
    found.push(
      `${label(r)}: p50 and p99 are the waits from decision to delivery; ${w.delivered.toLocaleString('en-US')} of ${w.decisions.toLocaleString('en-US')} decisions' events delivered (${w.attempts.toLocaleString('en-US')} attempts, ${w.invalid} refused signatures, longest ${w.maxMs} ms); the decisions themselves answered with p99 ${w.decisionP99Ms} ms`,
    );
  }
  if (r.choices && r.choices.stored < r.choices.answered) {
    found.push(
      `${label(r)}: only ${r.choices.stored} new choices stored for ${r.choices.answered} successful answers: some were retries answered 200, not new choices`,
    );
  }
  if (r.errors > 0) {
    found.push(
      `${label(r)}: ${r.errors} errors ${JSON.stringify(r.statusCodes)} ${r.notes.join('; ')}`,
    );
  }
  if (r.warmupErrors > 0) found.push(`${label(r)}: ${r.warmupErrors} errors during the warm-up`);
  const witnessed = r.notes.find((note) => note.startsWith('witnessed: '));
  if (witnessed) found.push(`${label(r)}: ${witnessed}`);
  if ((r.loadCpu ?? 0) > 0.9) {
    found.push(
      `${label(r)}: the load generator's core was saturated, so this is the load generator's limit; the server could do more`,
    );
  }
  if ((r.otherCpu ?? 0) > 0.1) {
    found.push(
      `${label(r)}: other processes used ${Math.round((r.otherCpu ?? 0) * 100)}% CPU during the run; its figures are low and noisy`,
    );
  }
  return found;
}

let cleaning: Promise<void> | undefined;
let interrupted = false;

/** Stops what was started and removes the temporary folder; once, whoever asks first. */
function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    const server = postgres;
    postgres = undefined;
    await stopAll();
    await server?.remove();
    rmSync(dir, { recursive: true, force: true });
  })();
  return cleaning;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    interrupted = true;
    process.stderr.write(`\n${signal}: stopping everything started\n`);
    void cleanUp().finally(() => process.exit(130));
  });
}

try {
  const machine = machineFacts();
  printHeader(config, machine);
  for (const store of config.stores) await benchStore(store);
  for (const r of rows) {
    // The workers group shares its cores with the load generator: not the ceiling's pinning.
    // A receipt run sends a fixed rate: its req/s is that rate, not a measure of speed.
    // The banner's bytes are not the ceiling's: its baseline is its own bare node:http.
    const ownBaseline = [bannerFastify.name, bareBanner.name, 'banner'].includes(r.endpoint);
    if (
      ceiling &&
      r.endpoint !== 'pg INSERT loop' &&
      r.workers === undefined &&
      !r.receipts &&
      !ownBaseline &&
      r.endpoint !== bulkEndpoint
    ) {
      r.vsCeiling = r.rps / ceiling.rps;
    }
    if (r.endpoint === 'cookie-choices' || r.endpoint === 'channel-changes') {
      const decided = rows.find(
        (d) =>
          d.endpoint === 'decisions' &&
          d.store === r.store &&
          d.size === r.size &&
          d.workers === undefined,
      );
      if (decided) r.vsDecisions = r.rps / decided.rps;
    }
    const fastify = rows.find((f) => f.endpoint === fastifyServer.name);
    if (fastify && r.endpoint === 'latest' && r.workers === undefined) {
      r.vsFastify = r.rps / fastify.rps;
    }
  }
  notes.push(...metricsCost(rows));
  notes.push(...witnessedCost(rows));
  notes.push(...webhookCost(rows));
  notes.push(...cookieCost(rows));
  notes.push(...bulkCost(rows, config));
  notes.push(...insertCost(rows));
  const all = ceiling ? [ceiling, ...rows] : rows;
  notes.push(...all.flatMap(rowNotes));
  const totalSeconds = (Date.now() - began) / 1000;
  process.stdout.write(`${formatTable(all)}\n\n`);
  if (notes.length > 0)
    process.stdout.write(`Notes:\n${notes.map((n) => `  ${n}`).join('\n')}\n\n`);
  process.stdout.write(`Steps:\n${formatSteps(steps)}\ntotal ${totalSeconds.toFixed(0)} s\n`);
  writeJson(config.output, {
    startedAt: new Date(began).toISOString(),
    totalSeconds,
    machine: { ...machine, pinned: unpinnedReason === undefined, unpinnedReason },
    config: { ...config, databaseUrl: config.databaseUrl ? '(BENCH_DATABASE_URL)' : undefined },
    ceiling,
    rows,
    notes,
    steps,
    latestResponseBytes: latestBytes,
  });
  process.stdout.write(`Results: ${config.output}\n`);
} catch (error) {
  // After a signal, the run in progress fails because its processes were stopped: not news.
  if (!interrupted) process.stderr.write(`bench failed: ${(error as Error).stack ?? error}\n`);
  process.exitCode = 1;
} finally {
  await cleanUp();
}
