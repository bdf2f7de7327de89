/**
 * How a run is measured: a load child (bench/wrk-load.mjs, bench/load.mjs or
 * bench/pg-insert-loop.mjs) and the CPU of the server, the database and the whole machine read
 * from /proc when its measured part starts and ends, turned into a row of the table.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import type { BenchConfig } from './config.js';
import {
  type Cores,
  loadCore,
  machineBusySeconds,
  runNodeJson,
  treeCpuDelta,
  treeCpuSeconds,
  treePeakRssMb,
} from './processes.js';
import type { LoadResult, Row } from './report.js';

/** What a run measured besides the load child's own figures. */
export interface Measured {
  load: LoadResult;
  peakRssMb: number | null;
  /** Cores used during the measured part by the server, the database and everything else. */
  serverCpu: number | null;
  dbCpu: number | null;
  otherCpu: number | null;
  /** The server's event-loop delay over the measured part, when watched. */
  loopDelay: { p50Ms: number; p99Ms: number; maxMs: number } | null;
}

export interface Measuring {
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
export async function measure(
  m: Measuring,
  script: string,
  loadConfig: unknown,
): Promise<Measured> {
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
      // Taken as the child stops; PostgreSQL backends that serve it and exit first still count,
      // in the postmaster's reaped time (treeCpuDelta).
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
export function loadScript(config: BenchConfig): string {
  return config.loadGenerator === 'wrk' ? 'bench/wrk-load.mjs' : 'bench/load.mjs';
}

export function row(store: string, size: number | null, endpoint: string, m: Measured): Row {
  return {
    store,
    size,
    endpoint,
    rps: m.load.rps,
    vsCeiling: null,
    p50Ms: m.load.p50Ms,
    ...(m.load.p95Ms === undefined ? {} : { p95Ms: m.load.p95Ms }),
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

/** Up to three distinct warnings or errors from the service's log, to say why a run failed. */
export function logExcerpt(logFile: string): string[] {
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
