/**
 * A process killed (SIGKILL) in the middle of a migration on an SQLite file: the pending
 * migrations run in one transaction, so the store is left as it was before them, and the next
 * start migrates it. Before, each migration ran outside a transaction: a table made before the
 * kill stayed, unrecorded, and the next start failed on it ("table … already exists").
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/platform/config.js';
import { createDb } from '../../src/platform/db.js';
import { migrateToLatest, migrations } from '../../src/platform/migrate.js';
import { testDataKey } from '../helpers/app.js';
import { repoRoot } from '../helpers/process.js';
import { migrateBefore } from '../helpers/schema-history.js';
import { seedTemplateRow, seedTenantRow } from '../helpers/seed.js';
import { budget } from '../helpers/time.js';

/**
 * The child: the built service's migrator, with one more migration sorted among the real ones
 * (`BLOCK_NAME`; by default before 0018, which makes `version_edits`) that makes a table
 * (`BLOCK_TABLE`, by default that one), says so, and never ends.
 */
const child = `
import { createDb } from ${JSON.stringify(join(repoRoot, 'dist/platform/db.js'))};
import { loadConfig } from ${JSON.stringify(join(repoRoot, 'dist/platform/config.js'))};
import { migrateToLatest } from ${JSON.stringify(join(repoRoot, 'dist/platform/migrate.js'))};
const db = createDb(loadConfig({ DATABASE_URL: process.env.STORE_URL }));
await migrateToLatest(db, Buffer.from(process.env.KEY_HEX, 'hex'), {
  [process.env.BLOCK_NAME ?? '0017-zz-killed-half-way']: {
    async up(trx) {
      const table = process.env.BLOCK_TABLE ?? 'version_edits';
      await trx.schema.createTable(table).addColumn('id', 'text').execute();
      process.stdout.write('half way\\n');
      await new Promise(() => {});
    },
  },
});
`;

/** Starts `child` on the store, waits until it is half way, and kills it with SIGKILL. */
async function killHalfWay(url: string, env: Record<string, string> = {}): Promise<void> {
  const process_ = spawn(process.execPath, ['--input-type=module', '-e', child], {
    env: { ...process.env, STORE_URL: url, KEY_HEX: testDataKey.toString('hex'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  process_.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the child never got half way: ${stderr}`)),
      budget(20_000),
    );
    process_.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('half way')) {
        clearTimeout(timer);
        resolve();
      }
    });
    process_.on('exit', () => reject(new Error(`the child ended: ${stderr}`)));
  });
  const killed = new Promise((resolve) => process_.on('exit', resolve));
  process_.kill('SIGKILL');
  await killed;
}

describe('a migration killed half way on SQLite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'migration-crash-'));
  const url = `file:${join(dir, 'store.db')}`;
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('leaves the store as it was before the pending migrations, and the next start migrates it', async () => {
    // A store of the release before 0018, with a template in it.
    const db = createDb(loadConfig({ DATABASE_URL: url }));
    await migrateBefore(db, '0018');
    const { tenant } = await seedTenantRow(db);
    const code = await seedTemplateRow(db, tenant.id);
    const applied = async () =>
      (
        await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db)
      ).rows.map((r) => r.name);
    const tables = async () =>
      (
        await sql<{
          name: string;
        }>`select name from sqlite_master where type = 'table' order by name`.execute(db)
      ).rows.map((r) => r.name);
    const appliedBefore = await applied();
    const tablesBefore = await tables();
    await db.destroy();

    // The next release starts, and is killed in the middle of its migrations.
    await killHalfWay(url);

    // As it was: no migration recorded, no table made.
    const after = createDb(loadConfig({ DATABASE_URL: url }));
    try {
      const appliedAfter = (
        await sql<{ name: string }>`select name from kysely_migration order by name`.execute(after)
      ).rows.map((r) => r.name);
      expect(appliedAfter).toEqual(appliedBefore);
      const tablesAfter = (
        await sql<{
          name: string;
        }>`select name from sqlite_master where type = 'table' order by name`.execute(after)
      ).rows.map((r) => r.name);
      expect(tablesAfter).toEqual(tablesBefore);

      // The next start migrates it, the template kept.
      const migrated = await migrateToLatest(after, testDataKey);
      expect(migrated[0]).toBe('0018-draft-authorship');
      expect(migrated.at(-1)).toBe(Object.keys(migrations(testDataKey)).sort().at(-1));
      const templates = await after
        .selectFrom('templates')
        .select('code')
        .where('tenant_id', '=', tenant.id)
        .execute();
      expect(templates).toEqual([{ code }]);
    } finally {
      await after.destroy();
    }
  });
});

/** The built service's migrator on `STORE_URL`, printing what it applied. */
const migrator = `
import { createDb } from ${JSON.stringify(join(repoRoot, 'dist/platform/db.js'))};
import { loadConfig } from ${JSON.stringify(join(repoRoot, 'dist/platform/config.js'))};
import { migrateToLatest } from ${JSON.stringify(join(repoRoot, 'dist/platform/migrate.js'))};
import { existsSync } from 'node:fs';
const db = createDb(loadConfig({ DATABASE_URL: process.env.STORE_URL }));
process.stderr.write('ready\\n');
while (!existsSync(process.env.GO)) await new Promise((resolve) => setTimeout(resolve, 1));
const applied = await migrateToLatest(db, Buffer.from(process.env.KEY_HEX, 'hex'));
process.stdout.write(JSON.stringify(applied));
await db.destroy();
`;

describe('two processes starting on one new SQLite file at once', () => {
  const dir = mkdtempSync(join(tmpdir(), 'migration-lock-'));
  const url = `file:${join(dir, 'store.db')}`;
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('migrate it once: one applies every migration, the other waits and finds none to apply', async () => {
    // Both are started and wait for a file; once both are ready, it is made, and both migrate.
    const go = join(dir, 'go');
    let ready = 0;
    const run = () =>
      new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
        const child = spawn(process.execPath, ['--input-type=module', '-e', migrator], {
          env: { ...process.env, STORE_URL: url, KEY_HEX: testDataKey.toString('hex'), GO: go },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        let err = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
        });
        child.stderr.on('data', (chunk: Buffer) => {
          err += chunk.toString();
          if (chunk.toString().includes('ready')) {
            ready += 1;
            if (ready === 2) writeFileSync(go, '');
          }
        });
        child.on('exit', (code) => resolve({ code, out, err }));
      });
    const results = await Promise.all([run(), run()]);
    for (const { code, err } of results) expect(code, err).toBe(0);
    const applied = results
      .map(({ out }) => JSON.parse(out) as string[])
      .sort((a, b) => a.length - b.length);
    expect(applied[0]).toEqual([]);
    expect(applied[1]).toEqual(Object.keys(migrations(testDataKey)).sort());
  });
});

describe('a store of release 0.2.0 with 100,000 decisions, killed during its upgrade', () => {
  const dir = mkdtempSync(join(tmpdir(), 'migration-crash-100k-'));
  const url = `file:${join(dir, 'store.db')}`;
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps every decision, and the next start upgrades it', async () => {
    // An earlier release's schema (CHANGELOG.md: 0.2.0 has every migration before 0030).
    const db = createDb(loadConfig({ DATABASE_URL: url }));
    await migrateBefore(db, '0030');
    // 100,000 rows of decisions, every column filled (their content plays no part here).
    const columns = (
      await sql<{ name: string; type: string }>`pragma table_info(decisions)`.execute(db)
    ).rows;
    const values = columns.map(({ name, type }) =>
      name === 'id' || name === 'seq'
        ? name === 'id'
          ? sql`printf('00000000-0000-7000-8000-%012d', n)`
          : sql`n`
        : /INT/i.test(type)
          ? sql`1`
          : sql`'x'`,
    );
    await sql`with recursive count(n) as (select 1 union all select n + 1 from count where n < 100000)
      insert into decisions (${sql.join(columns.map((c) => sql.ref(c.name)))})
      select ${sql.join(values)} from count`.execute(db);
    const decisions = async (on: typeof db) =>
      Number(
        (await sql<{ n: number }>`select count(*) as n from decisions`.execute(on)).rows[0]?.n,
      );
    expect(await decisions(db)).toBe(100_000);
    await db.destroy();

    // The current release starts, and is killed in the middle of its migrations: after the
    // last one, in one more that never ends.
    await killHalfWay(url, {
      BLOCK_NAME: '9999-killed-half-way',
      BLOCK_TABLE: 'killed_half_way',
    });

    const after = createDb(loadConfig({ DATABASE_URL: url }));
    try {
      expect(await decisions(after)).toBe(100_000);
      expect(
        (await sql<{ name: string }>`select name from kysely_migration`.execute(after)).rows.map(
          (r) => r.name,
        ),
      ).not.toContain('0030-log-epochs');
      // Every migration since the previous release, none of which the kill left applied.
      const since = Object.keys(migrations(testDataKey)).filter((name) => name >= '0030');
      expect(since.slice(0, 2)).toEqual(['0030-log-epochs', '0031-log-witnesses']);
      expect(await migrateToLatest(after, testDataKey)).toEqual(since.sort());
      expect(await decisions(after)).toBe(100_000);
    } finally {
      await after.destroy();
    }
  });
});
