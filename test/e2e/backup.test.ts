/**
 * `backup` of an SQLite store while the service records decisions, then `restore` (docs/
 * operations.md, "Backups"): the copy audits clean, every decision acknowledged before the
 * backup began is in the restored store, the service starts on it, and a restore is refused
 * while the service runs. A copy of the file alone would miss what is still in its WAL.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callServer,
  freePort,
  makeTempStore,
  type Provisioned,
  pollUntil,
  provision,
  runCli,
  runCliProcess,
  type ServerProcess,
  serverEnv,
  showResult,
  startServer,
  type TempStore,
  withStore,
} from '../helpers/process.js';
import { budget } from '../helpers/time.js';

interface Backed {
  file: string;
  bytes: number;
  tenants: Array<{ alias: string; ok: boolean; entries: number; findings: number }>;
  ok: boolean;
}

describe('backup under write load, then restore, on SQLite', () => {
  let store: TempStore;
  let env: Record<string, string>;
  let server: ServerProcess | undefined;
  let p: Provisioned;

  beforeAll(async () => {
    store = makeTempStore();
    const port = await freePort();
    env = serverEnv(store, port);
    p = await provision(env);
    server = await startServer({ store, port, env });
  });
  afterAll(async () => {
    await server?.stop(budget(10_000));
    await store?.remove();
  });

  it('keeps every decision acknowledged before it, audits clean, and restores to a store the service runs on', async () => {
    const running = server as ServerProcess;
    const acked: string[] = [];
    let stop = false;
    const writer = async (lane: number) => {
      for (let i = 0; !stop; i += 1) {
        const response = await callServer(
          running,
          { 'x-system-api-key': p.apiKey.key, 'content-type': 'application/json' },
          `/api/v1/customers/c-${lane}-${i % 20}/consents/decisions`,
          {
            method: 'POST',
            body: JSON.stringify({
              consent_version_id: p.versionId,
              // Each customer's decisions alternate, starting with a consent.
              decision: Math.floor(i / 20) % 2 === 0 ? 'given' : 'withdraw',
            }),
          },
        );
        expect(response.status).toBe(201);
        acked.push(((await response.json()) as { data: { decision_id: string } }).data.decision_id);
      }
    };
    const load = Promise.all([0, 1, 2, 3].map(writer));
    const enough = (n: number) => async () => (acked.length >= n ? true : undefined);
    expect(await pollUntil(enough(100), { timeoutMs: budget(30_000) })).toBe(true);

    const file = join(store.dir, 'backup.db');
    const ackedBefore = [...acked];
    const backup = await runCliProcess(['backup', '--to', file], env, { cwd: store.dir });
    // The writes went on during the backup and after it.
    expect(await pollUntil(enough(acked.length + 40), { timeoutMs: budget(30_000) })).toBe(true);
    stop = true;
    await load;
    expect(backup.code, showResult(backup)).toBe(0);
    const backed = JSON.parse(backup.stdout) as Backed;
    expect(backed).toMatchObject({ file, ok: true });
    expect(backed.tenants).toEqual([
      expect.objectContaining({ alias: p.alias, ok: true, findings: 0 }),
    ]);
    expect(backed.bytes).toBeGreaterThan(0);

    // A backup never overwrites a file, and a restore is refused while the service runs.
    const again = await runCli(['backup', '--to', file], env, { cwd: store.dir });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`${file} already exists`);
    const refused = await runCli(['restore', '--from', file], env, { cwd: store.dir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('-wal exists: a process has the store open');

    await running.stop(budget(10_000));
    server = undefined;
    const restore = await runCli(['restore', '--from', file], env, { cwd: store.dir });
    expect(restore.code, showResult(restore)).toBe(0);
    const restored = JSON.parse(restore.stdout) as Backed & { kept_previous: string };
    expect(restored.ok).toBe(true);
    expect(existsSync(restored.kept_previous)).toBe(true);

    const ids = new Set(
      await withStore(store, async (db) =>
        (await sql<{ id: string }>`select id from decisions`.execute(db)).rows.map((r) => r.id),
      ),
    );
    expect(ackedBefore.filter((id) => !ids.has(id))).toEqual([]);
    // Those acknowledged once the backup was over are not in it.
    expect(ids.has(acked.at(-1) as string)).toBe(false);

    // The log went on after the backup: it takes a new epoch before the service signs on
    // (test/e2e/log-epoch.test.ts).
    const epoch = await runCli(['log', 'new-epoch', '--tenant', p.alias], env, { cwd: store.dir });
    expect(epoch.code, showResult(epoch)).toBe(0);
    server = await startServer({ store, port: running.port, env });
    const audit = await runCli(['audit', '--tenant', p.alias], env, { cwd: store.dir });
    expect(audit.code, showResult(audit)).toBe(0);
  });

  it('refuses a backup sealed with another data key, changing nothing', async () => {
    const other = { ...env, DATA_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') };
    const result = await runCli(['restore', '--from', join(store.dir, 'backup.db')], other, {
      cwd: store.dir,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'cannot be restored here: The data encryption key is not the one the backup was sealed with',
    );
  });
});
