import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, release, totalmem } from 'node:os';
import { dirname } from 'node:path';

/** What a load child reports (bench/load.mjs and bench/pg-insert-loop.mjs print this shape). */
export interface LoadResult {
  durationS: number;
  requests: number;
  rps: number;
  p50Ms: number;
  /** bench/bulk-load.mjs only: exact, from every request's latency. */
  p95Ms?: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  statusCodes: Record<string, number>;
  /** Cores the load generator used during the measured part (1 = its core was saturated). */
  loadCpu?: number;
  warmup?: LoadResult | null;
}

export interface Row {
  store: string;
  /** Stored decisions before the run; null for the ceiling. */
  size: number | null;
  endpoint: string;
  rps: number;
  /** rps / the ceiling's rps; null when not comparable (the insert baseline). */
  vsCeiling: number | null;
  /** `latest` only: rps / bare Fastify's with the same log line, in the same run. */
  vsFastify?: number;
  p50Ms: number;
  /** `bulk-status` only (its load generator measures it). */
  p95Ms?: number;
  p99Ms: number;
  /** The measured server's VmHWM at the end of the run (with several workers, the primary's and
   * the workers' added up); null when not a process of ours. */
  peakRssMb: number | null;
  /** Cores used during the measured part: the server process, PostgreSQL (embedded only), the
   * load generator, and every other process on the machine (noise from outside the bench). */
  serverCpu: number | null;
  dbCpu: number | null;
  loadCpu: number | null;
  otherCpu: number | null;
  /** Non-2xx answers plus socket errors and timeouts, measured part only. */
  errors: number;
  statusCodes: Record<string, number>;
  warmupErrors: number;
  /** The server's event-loop delay p99 over the measured part (one process only), else null. */
  loopDelayP99Ms: number | null;
  /** PostgreSQL decisions only: rps / the bare INSERT loop's inserts per second. */
  vsInsert?: number;
  /**
   * PostgreSQL decisions only: the loop's database CPU an insert / the database's CPU a
   * decision (the decisions the database's CPU allows against the loop's inserts).
   */
  vsInsertDbCpu?: number;
  /** `banner` and its bare Fastify: rps / the rps of bare node:http serving the same bytes. */
  vsBare?: number;
  /** `cookie-choices` and `channel-changes`: rps / the rps of `decisions` for the same store and size. */
  vsDecisions?: number;
  /** `cookie-choices` only: successful answers in the run (warm-up included) and the choices the
   * store gained meanwhile, which must be at least as many (each request a new choice). */
  choices?: { answered: number; stored: number };
  /** The workers group only: the service's `WORKERS`, the cores it shared with the load
   * generator, and rps / the rps of `WORKERS=1` for the same store and endpoint. */
  workers?: number;
  cores?: string;
  vsOneWorker?: number;
  /** The receipt-latency run only: waits counted, the longest, and the decisions' own p99. */
  receipts?: { count: number; maxMs: number; decisionP99Ms: number };
  /** The webhook run only: decisions made, their events delivered (once each by webhook-id),
   * every attempt the receiver saw, signatures it refused, the longest wait, the decisions' p99. */
  webhooks?: {
    decisions: number;
    delivered: number;
    attempts: number;
    invalid: number;
    maxMs: number;
    decisionP99Ms: number;
  };
  notes: string[];
}

export interface Step {
  name: string;
  seconds: number;
}

export function machineFacts(): Record<string, string | number> {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['describe', '--always', '--dirty'], { encoding: 'utf8' }).trim();
  } catch {
    // Not a git checkout.
  }
  return {
    cpu: /^model name\s*:\s*(.*)$/m.exec(cpuinfo)?.[1] ?? cpus()[0]?.model ?? 'unknown',
    cores: availableParallelism(),
    memoryGb: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    kernel: release(),
    loadAverage1m: Math.round((loadavg()[0] ?? 0) * 100) / 100,
    schedAutogroup: schedAutogroup(),
    commit,
  };
}

/**
 * Linux's automatic process groups (`kernel.sched_autogroup_enabled`): on, off, or absent where
 * the kernel has none. Every PostgreSQL backend starts a session of its own, so with them on each
 * is a group of its own, and on the core it shares with the service a backend that has just woken
 * waits behind it for up to a second (notebook.md, "PostgreSQL's backends and Linux's process
 * groups"). The setting is the machine's: the header says which a run had.
 */
export function schedAutogroup(): 'on' | 'off' | 'absent' {
  try {
    return readFileSync('/proc/sys/kernel/sched_autogroup_enabled', 'utf8').trim() === '0'
      ? 'off'
      : 'on';
  } catch {
    return 'absent';
  }
}

/** The database's CPU time per request, in µs (NaN when it was not measured or nothing was served). */
export function dbUsPerRequest(r: Row): number {
  return r.dbCpu === null || r.rps === 0 ? Number.NaN : (r.dbCpu / r.rps) * 1e6;
}

/** The server's CPU time per request, in µs (NaN when it was not measured or nothing was served). */
export function serverUsPerRequest(r: Row): number {
  return r.serverCpu === null || r.rps === 0 ? Number.NaN : (r.serverCpu / r.rps) * 1e6;
}

const columns: [string, (r: Row) => string][] = [
  ['store', (r) => r.store],
  ['size', (r) => (r.size === null ? '-' : r.size.toLocaleString('en-US'))],
  [
    'endpoint',
    (r) => (r.workers === undefined ? r.endpoint : `${r.endpoint} WORKERS=${r.workers}`),
  ],
  ['req/s', (r) => Math.round(r.rps).toLocaleString('en-US')],
  ['vs ceiling', (r) => (r.vsCeiling === null ? '-' : r.vsCeiling.toFixed(2))],
  ['vs Fastify', (r) => (r.vsFastify === undefined ? '' : r.vsFastify.toFixed(2))],
  ['p50 ms', (r) => r.p50Ms.toFixed(1)],
  ['p99 ms', (r) => r.p99Ms.toFixed(1)],
  ['loop p99 ms', (r) => (r.loopDelayP99Ms === null ? '-' : r.loopDelayP99Ms.toFixed(1))],
  ['peak RSS MB', (r) => (r.peakRssMb === null ? '-' : r.peakRssMb.toFixed(0))],
  ['errors', (r) => errorsCell(r)],
  ['vs pg insert', (r) => (r.vsInsert === undefined ? '' : r.vsInsert.toFixed(2))],
  ['vs bare', (r) => (r.vsBare === undefined ? '' : r.vsBare.toFixed(2))],
  ['vs decisions', (r) => (r.vsDecisions === undefined ? '' : r.vsDecisions.toFixed(2))],
  ['vs 1 worker', (r) => (r.vsOneWorker === undefined ? '' : r.vsOneWorker.toFixed(2))],
  ['CPU srv', (r) => percent(r.serverCpu)],
  [
    'srv µs/req',
    (r) => {
      const us = serverUsPerRequest(r);
      return Number.isFinite(us) ? us.toFixed(0) : '-';
    },
  ],
  ['CPU db', (r) => percent(r.dbCpu)],
  [
    'db µs/req',
    (r) => {
      const us = dbUsPerRequest(r);
      return Number.isFinite(us) ? us.toFixed(0) : '-';
    },
  ],
  ['CPU load', (r) => percent(r.loadCpu)],
  ['CPU other', (r) => percent(r.otherCpu)],
];

function percent(cores: number | null): string {
  return cores === null ? '-' : `${Math.round(cores * 100)}%`;
}

/** Errors are shouted, with their status codes, so a broken run cannot pass for a slow one. */
function errorsCell(row: Row): string {
  if (row.errors === 0) return '0';
  const codes = Object.entries(row.statusCodes)
    .filter(([code]) => !code.startsWith('2'))
    .map(([code, count]) => `${code}x${count}`);
  return `!! ${row.errors} ${codes.join(' ')}`.trim();
}

export function formatTable(rows: Row[]): string {
  const cells = [columns.map(([title]) => title), ...rows.map((r) => columns.map(([, f]) => f(r)))];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => (line[i] ?? '').length)));
  const leftAligned = new Set([0, 2, 8]);
  const render = (line: string[]) =>
    line
      .map((cell, i) =>
        leftAligned.has(i) ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0),
      )
      .join('  ')
      .trimEnd();
  const [header, ...body] = cells;
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [render(header ?? []), rule, ...body.map(render)].join('\n');
}

export function formatSteps(steps: Step[]): string {
  const width = Math.max(...steps.map((s) => s.name.length));
  return steps
    .map((s) => `${s.name.padEnd(width)}  ${s.seconds.toFixed(1).padStart(7)} s`)
    .join('\n');
}

export function writeJson(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}
