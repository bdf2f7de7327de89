import { type ChildProcess, execFileSync, type SpawnOptions, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { createInterface } from 'node:readline';

/** Core 0 runs what is measured (the server, the database); core 1 the load generator. */
export const serverCore = 0;
export const loadCore = 1;

/** A core, or a `taskset` core list ("0,1", "0-3"). */
export type Cores = number | string;

/** Cores 0 to n - 1, for runs that share them. */
export function firstCores(n: number): string {
  return n <= 1 ? '0' : `0-${n - 1}`;
}

/** Why runs are unpinned, or undefined when `taskset` pins them. */
export const unpinnedReason: string | undefined = (() => {
  if (availableParallelism() < 2) return 'fewer than 2 cores';
  try {
    execFileSync('taskset', ['-c', '0,1', 'true'], { stdio: 'ignore' });
    return undefined;
  } catch {
    return 'taskset is missing or cannot pin to cores 0 and 1';
  }
})();

const running = new Set<ChildProcess>();

/**
 * Starts a command on the given cores (`taskset` execs it, so the child's pid is the command's own
 * and /proc figures are its own). Every child is remembered so that a failure still stops it.
 */
export function spawnPinned(
  cores: Cores,
  command: string,
  args: string[],
  options: SpawnOptions,
): ChildProcess {
  const child =
    unpinnedReason === undefined
      ? spawn('taskset', ['-c', String(cores), command, ...args], options)
      : spawn(command, args, options);
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

/**
 * SIGTERM, then SIGKILL if it has not exited after `graceMs`. Its own children (the service's
 * cluster workers) are stopped by it; any still there once it has exited get SIGKILL.
 */
export async function stopProcess(child: ChildProcess, graceMs = 15_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const children = child.pid ? childrenOf(child.pid) : [];
  const started = new Map(children.map((pid) => [pid, startTime(pid)]));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
  // The same start time: the very process, not a newcomer that got its pid.
  const alive = () => children.filter((pid) => started.get(pid) === (startTime(pid) ?? ''));
  const deadline = Date.now() + 5_000;
  while (alive().length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  for (const pid of alive()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // It exited meanwhile.
    }
  }
}

/** Stops every child still running: the failure path. */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((child) => stopProcess(child, 5_000)));
}

/** Runs a Node script on the load core; resolves with the JSON of its last stdout line. */
export function runNodeJson<T>(
  script: string,
  args: string[],
  onLine?: (line: string) => void,
  cores: Cores = loadCore,
): Promise<T> {
  const child = spawnPinned(cores, process.execPath, [script, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let last = '';
  let stderr = '';
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
    last = line;
    onLine?.(line);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0) reject(new Error(`${script} exited with ${code}: ${stderr.trim()}`));
      else resolve(JSON.parse(last) as T);
    });
  });
}

/** Peak resident memory of a live process since it started, in MB (VmHWM). */
export function peakRssMb(pid: number): number | null {
  try {
    const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/**
 * The peaks of a process and of its children alive now (the service's cluster workers), added
 * up: an upper bound of what they held at once.
 */
export function treePeakRssMb(rootPid: number): number | null {
  const own = peakRssMb(rootPid);
  if (own === null) return null;
  return childrenOf(rootPid).reduce((sum, pid) => sum + (peakRssMb(pid) ?? 0), own);
}

const clockTicks = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU seconds (user + system) a process has used so far. */
export function cpuSeconds(pid: number): number | null {
  const fields = statFields(pid);
  if (!fields) return null;
  return (Number(fields[11]) + Number(fields[12])) / clockTicks;
}

/** The fields of /proc/PID/stat after the command name (field 3, the state, is index 0). */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/**
 * Pins a running process and all its children to the given cores (for PostgreSQL: the postmaster
 * and its workers; backends forked later inherit the postmaster's affinity). Returns how many.
 */
export function pinTree(rootPid: number, cores: Cores): number {
  let pinned = 0;
  for (const pid of [rootPid, ...childrenOf(rootPid)]) {
    try {
      execFileSync('taskset', ['-a', '-p', '-c', String(cores), String(pid)], { stdio: 'ignore' });
      pinned++;
    } catch {
      // It exited meanwhile (a short-lived worker): nothing to pin.
    }
  }
  return pinned;
}

/** CPU seconds used by a process, its children alive now and those it has reaped (PostgreSQL's
 * postmaster tree, the service's cluster primary and workers). */
export function treeCpuSeconds(rootPid: number): Map<number, number> {
  const used = new Map<number, number>();
  for (const pid of [rootPid, ...childrenOf(rootPid)]) {
    const seconds = cpuSeconds(pid);
    if (seconds !== null) used.set(pid, seconds);
  }
  // What the root's children used once they exited, which the kernel adds to the root as it
  // reaps them (PostgreSQL's backends, when their clients disconnect): under pid 0, which no
  // child has.
  const reaped = reapedCpuSeconds(rootPid);
  if (reaped !== null) used.set(0, reaped);
  return used;
}

/**
 * What a tree used between two snapshots; processes born meanwhile count from zero. A child gone
 * by the second is in its root's reaped time with all it ever used: what it had used by the first
 * is taken off, so that one which exits just before the second snapshot still counts, and only
 * for the interval.
 */
export function treeCpuDelta(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, seconds] of after) total += seconds - (before.get(pid) ?? 0);
  for (const [pid, seconds] of before) {
    if (pid !== 0 && !after.has(pid) && after.has(0)) total -= seconds;
  }
  return total;
}

/** CPU seconds of a process's children that it has reaped (cutime + cstime). */
function reapedCpuSeconds(pid: number): number | null {
  const fields = statFields(pid);
  if (!fields) return null;
  return (Number(fields[13]) + Number(fields[14])) / clockTicks;
}

/** Busy CPU seconds of the whole machine so far, all cores (idle, iowait and steal excluded). */
export function machineBusySeconds(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const [, user, nice, system, , , irq, softirq] = line.trim().split(/\s+/).map(Number);
  return ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0)) / clockTicks;
}

/** When a process started, in clock ticks since boot; null once it is gone. */
function startTime(pid: number): string | null {
  return statFields(pid)?.[19] ?? null;
}

function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry) && Number(statFields(Number(entry))?.[1]) === pid)
    .map(Number);
}

/** The parent pid of a process. */
export function parentPid(pid: number): number | null {
  const ppid = statFields(pid)?.[1];
  return ppid === undefined ? null : Number(ppid);
}
