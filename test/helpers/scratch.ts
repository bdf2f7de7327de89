import { chmodSync, mkdtempSync, readdirSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Room for a run: its folder held 315 MB at most in a whole run (60 MB: PostgreSQL). */
const roomNeeded = 2 * 1024 ** 3;
export const scratchPrefix = 'consent-tests-';
/** Set in the process that made the folder; its workers inherit it with `TMPDIR`. */
const inherited = 'CONSENT_TEST_SCRATCH';

/**
 * Where a test run keeps its files: the stores, the PostgreSQL server's data, the browser's
 * profiles, the servers' working folders. Every helper makes its folders with `os.tmpdir()`,
 * which reads `TMPDIR`; the run points `TMPDIR` at a folder of its own, made once in the process
 * that starts the run (Vitest reads `vitest.config.ts`, which imports this module, before it
 * starts any worker) and removed when the run ends (`global-setup.ts`), so that nothing a test
 * leaves behind outlives the run.
 *
 * The folder is on a file system in memory (Linux's `/dev/shm`) when there is one with room
 * enough: SQLite's stores sync their files at every commit, and on a disk those syncs took half
 * the system CPU time of a run of the write-heavy files (58 s against 31, 151 s against 141 s
 * in all). The stores' code is the same either way: what a `kill -9` leaves, which the crash
 * tests check, is the same in memory as on a disk. `TEST_TMPDIR` names another place.
 */
export const scratchRoot = readScratchRoot();

function readScratchRoot(): string {
  const made = process.env[inherited];
  if (made) return made;
  const base = process.env.TEST_TMPDIR || (roomIn('/dev/shm') ? '/dev/shm' : tmpdir());
  removeAbandoned(base);
  const dir = mkdtempSync(join(base, `${scratchPrefix}${process.pid}-`));
  // The PostgreSQL server the tests start runs as `postgres` when the run is root's: it must be
  // able to reach its data folder inside this one.
  chmodSync(dir, 0o755);
  process.env[inherited] = dir;
  process.env.TMPDIR = dir;
  return dir;
}

/** Whether the file system of `path` has the room a run takes. */
export function roomIn(path: string): boolean {
  try {
    const { bavail, bsize } = statfsSync(path);
    return bavail * bsize >= roomNeeded;
  } catch {
    return false;
  }
}

/** Removes the folders in `base` of earlier runs whose process is gone (killed before the end). */
export function removeAbandoned(base: string): void {
  let names: string[];
  try {
    names = readdirSync(base).filter((name) => name.startsWith(scratchPrefix));
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(name.slice(scratchPrefix.length).split('-')[0]);
    if (Number.isInteger(pid) && pid > 0 && !alive(pid)) {
      rmSync(join(base, name), { recursive: true, force: true });
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but is another user's.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the run's folder, with whatever its tests left in it. */
export function removeScratchRoot(): void {
  rmSync(scratchRoot, { recursive: true, force: true });
}
