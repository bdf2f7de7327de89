import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { loadCore, serverCore } from './processes.js';

/** The benchmark's knobs, all from the environment (see bench/README.md). */

export type Store = 'sqlite' | 'postgres';
/**
 * `latest-metrics`: `latest` with /metrics on and scraped every second (its cost beside `latest`).
 * `decisions-witnessed`: `decisions` with two witnesses and a time-stamping authority configured
 * (bench/outside.ts), at each store's first size only: their cost beside `decisions`.
 * `cookie-choices` and `banner`: the public cookie endpoints, at each store's first size only.
 * `channel-changes`: a customer's e-mail blocked for a product, each a new customer, so that
 * each is recorded (a control change), at each store's first size only.
 */
export type Endpoint =
  | 'latest'
  | 'latest-metrics'
  | 'pending'
  | 'history'
  | 'decisions'
  | 'decisions-witnessed'
  | 'cookie-choices'
  | 'channel-changes'
  | 'banner'
  | 'bulk-status';

/** The public cookie endpoints: measured at each store's first size, not in the workers group. */
export const cookieEndpoints: readonly Endpoint[] = ['cookie-choices', 'banner'];

/** Measured at each store's first size only, not in the workers group, as the cookie endpoints. */
export const firstSizeEndpoints: readonly Endpoint[] = [...cookieEndpoints, 'channel-changes'];

/**
 * `bulk-status`: `POST /api/v1/consents/status` with many ids a request, from a few connections
 * (bench/bulk-load.mjs): a latency at a campaign tool's pace, not a throughput; not in the
 * workers group.
 */
export const bulkEndpoint: Endpoint = 'bulk-status';

export interface BenchConfig {
  /** Seconds measured per run. */
  durationS: number;
  /** Seconds of load before each measured run, not counted. */
  warmupS: number;
  connections: number;
  /** Stored decisions before each group of runs. */
  sizes: number[];
  stores: Store[];
  endpoints: Endpoint[];
  /** The workers group's `WORKERS` values, ascending and starting with 1; empty: no group. */
  workers: number[];
  /** Decisions per second for the receipt-latency run (0: no such run). */
  receiptRate: number;
  /** An existing PostgreSQL (superuser or CREATEDB) instead of the embedded one. */
  databaseUrl: string | undefined;
  /** Where the JSON results go. */
  output: string;
  /**
   * The load generator of the runs at full speed: `wrk` (Debian's package) when installed, else
   * autocannon; `BENCH_LOAD` picks one. Fixed-rate runs (receipts) always use autocannon.
   */
  loadGenerator: 'wrk' | 'autocannon';
  /** `BENCH_CPU_PROF`: a folder where every service process writes its V8 CPU profile. */
  cpuProfileDir: string | undefined;
  /** `bulk-status`: concurrent requests, each waiting for its answer before the next. */
  bulkConnections: number;
  /** `bulk-status`: customer ids a request. */
  bulkIds: number;
  /** The embedded PostgreSQL's settings, each `name=value` (none: the server's defaults). */
  postgresSettings: string[];
  /**
   * `read`: before a stored size's runs, what `pending` reads is read once into the kernel's
   * cache (a server that has served for a while); `cold`: the runs start right after the bulk
   * load; `reads`: as `read`, with what history and bulk status read too when the run has them
   * (the decisions' rows among them).
   */
  hotSet: 'read' | 'reads' | 'cold';
  /**
   * `BENCH_PARTITION`: each PostgreSQL store's tables that grow without bound partitioned by
   * `year` or `month` (`store partition`) after its load; absent: kept whole.
   */
  partition: 'year' | 'month' | undefined;
  /**
   * `BENCH_CONTENT_BYTES`: the fixture's consent texts padded with paragraphs to about this many
   * bytes, as a real privacy policy is (tens of kilobytes); 0: the short text of every earlier run.
   */
  contentBytes: number;
  /**
   * `BENCH_LOOP_ROUNDS`: how many times PostgreSQL decisions and the bare INSERT loop are
   * measured, one right after the other, at each size; their ratios are the median of the
   * rounds' (one loud minute moves one round, not the figure).
   */
  loopRounds: number;
  /**
   * `BENCH_SERVICE_CORE`: the core the service under test runs on; 0 (the default) beside
   * PostgreSQL, 1 beside the load generator, leaving core 0 to PostgreSQL as a database on a host
   * of its own would be: where the service waits on the database's answers rather than shares
   * its CPU (docs/performance.md, "How it is measured").
   */
  serviceCore: number;
}

const allStores: Store[] = ['sqlite', 'postgres'];
// `cookie-choices` and `channel-changes` right after `decisions`, which they are compared with:
// noise hits them alike.
const allEndpoints: Endpoint[] = [
  'latest',
  'latest-metrics',
  'pending',
  'history',
  'decisions',
  'decisions-witnessed',
  'cookie-choices',
  'channel-changes',
  'banner',
  'bulk-status',
];

export function loadBenchConfig(env: NodeJS.ProcessEnv = process.env): BenchConfig {
  return {
    durationS: number(env, 'BENCH_DURATION', 10, 1),
    warmupS: number(env, 'BENCH_WARMUP', 3, 0),
    connections: number(env, 'BENCH_CONNECTIONS', 50, 1),
    sizes: list(env, 'BENCH_SIZES', '0,100000,10000000').map((s) => size(s)),
    stores: oneOf(env, 'BENCH_STORES', allStores),
    endpoints: oneOf(env, 'BENCH_ENDPOINTS', allEndpoints),
    workers: workerCounts(list(env, 'BENCH_WORKERS', '1,2')),
    receiptRate: number(env, 'BENCH_RECEIPT_RATE', 1000, 0),
    databaseUrl: env.BENCH_DATABASE_URL || undefined,
    output: env.BENCH_OUTPUT || 'bench/results/latest.json',
    loadGenerator: loadGenerator(env.BENCH_LOAD),
    cpuProfileDir: env.BENCH_CPU_PROF || undefined,
    bulkConnections: number(env, 'BENCH_BULK_CONNECTIONS', 2, 1),
    bulkIds: number(env, 'BENCH_BULK_IDS', 1000, 1),
    postgresSettings: list(env, 'BENCH_POSTGRES_SETTINGS', ''),
    hotSet: hotSet(env.BENCH_HOT_SET),
    partition: partition(env.BENCH_PARTITION),
    contentBytes: number(env, 'BENCH_CONTENT_BYTES', 0, 0),
    loopRounds: number(env, 'BENCH_LOOP_ROUNDS', 3, 1),
    serviceCore: serviceCore(env.BENCH_SERVICE_CORE),
  };
}

function loadGenerator(raw: string | undefined): 'wrk' | 'autocannon' {
  if (raw === 'wrk' || raw === 'autocannon') return raw;
  if (raw !== undefined && raw !== '') throw new Error('BENCH_LOAD must be wrk or autocannon');
  const found = spawnSync('wrk', ['--version'], { stdio: 'ignore' });
  // `wrk --version` prints its usage and exits 1: found is "it ran at all".
  return found.error ? 'autocannon' : 'wrk';
}

function hotSet(raw: string | undefined): 'read' | 'reads' | 'cold' {
  if (raw === undefined || raw === '' || raw === 'read') return 'read';
  if (raw === 'cold' || raw === 'reads') return raw;
  throw new Error('BENCH_HOT_SET must be read, reads or cold');
}

function partition(raw: string | undefined): 'year' | 'month' | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (raw === 'year' || raw === 'month') return raw;
  throw new Error('BENCH_PARTITION must be year or month');
}

function number(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min) throw new Error(`${name} must be a number >= ${min}`);
  return value;
}

function list(env: NodeJS.ProcessEnv, name: string, fallback: string): string[] {
  return (env[name] || fallback)
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** "100000", "100_000", "100k" and "10m" all work: sizes are typed by hand. */
function size(raw: string): number {
  const match = /^(\d[\d_]*)([km]?)$/i.exec(raw);
  if (!match) throw new Error(`BENCH_SIZES: "${raw}" is not a number of decisions`);
  const base = Number((match[1] ?? '').replaceAll('_', ''));
  const unit = match[2]?.toLowerCase();
  const value = unit === 'k' ? base * 1e3 : unit === 'm' ? base * 1e6 : base;
  // Each generated customer has two decisions (see dataset.ts), so sizes are even.
  return value - (value % 2);
}

/** "1,2", "1,auto" or "none"; 1 is always measured, as what the others are compared with. */
function workerCounts(raw: string[]): number[] {
  if (raw.length === 1 && raw[0] === 'none') return [];
  const counts = raw.map((value) => {
    const count = value === 'auto' ? availableParallelism() : Number(value);
    if (!Number.isInteger(count) || count < 1 || count > 999) {
      throw new Error(`BENCH_WORKERS: "${value}" is not a number of workers (1 to 999, or auto)`);
    }
    return count;
  });
  return [...new Set([1, ...counts])].sort((a, b) => a - b);
}

function oneOf<T extends string>(env: NodeJS.ProcessEnv, name: string, all: T[]): T[] {
  const chosen = list(env, name, all.join(','));
  for (const value of chosen) {
    if (!all.includes(value as T)) throw new Error(`${name}: "${value}" is not one of ${all}`);
  }
  return chosen as T[];
}

/** The server core (PostgreSQL's), unless the service is moved beside the load generator. */
function serviceCore(value: string | undefined): number {
  if (value === undefined || value === '' || value === String(serverCore)) return serverCore;
  if (value === String(loadCore)) return loadCore;
  throw new Error(`BENCH_SERVICE_CORE must be ${serverCore} or ${loadCore}, not ${value}`);
}
