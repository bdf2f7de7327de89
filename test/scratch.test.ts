/**
 * The run's own folder for its files (helpers/scratch.ts): every file of the run makes its
 * temporary folders in it, and a folder an earlier run left is removed once its process is gone.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeAbandoned, roomIn, scratchPrefix, scratchRoot } from './helpers/scratch.js';

describe("the test run's folder", () => {
  const base = mkdtempSync(join(tmpdir(), 'scratch-sweep-'));
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('is where this file makes its temporary folders, one the run made for itself', () => {
    expect(process.env.TMPDIR).toBe(scratchRoot);
    expect(tmpdir()).toBe(scratchRoot);
    expect(scratchRoot).toContain(scratchPrefix);
    expect(statSync(scratchRoot).mode & 0o777).toBe(0o755);
  });

  it('is in TEST_TMPDIR when set, else in /dev/shm when the machine has it with room', () => {
    const wanted = process.env.TEST_TMPDIR || (roomIn('/dev/shm') ? '/dev/shm' : undefined);
    if (wanted === undefined) {
      expect(dirname(scratchRoot)).not.toBe('/dev/shm');
    } else {
      expect(dirname(scratchRoot)).toBe(wanted);
    }
  });

  it("removes an earlier run's folder when its process is gone, and keeps a running one's", () => {
    // A process that has exited: its id names no process now (ids are not reused this soon).
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    }).stdout;
    const abandoned = join(base, `${scratchPrefix}${gone}-abc123`);
    const running = join(base, `${scratchPrefix}${process.pid}-def456`);
    const other = join(base, 'consent-app-ghi789');
    for (const dir of [abandoned, running, other])
      mkdirSync(join(dir, 'inside'), { recursive: true });

    removeAbandoned(base);

    expect(existsSync(abandoned)).toBe(false);
    expect(existsSync(running)).toBe(true);
    expect(existsSync(other)).toBe(true);
  });
});
