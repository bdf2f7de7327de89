/**
 * What migration 0048 (the log's nodes from level 4 up) costs a store whose log holds
 * `BENCH_LEAVES` leaves (default 1,000,000), as release 0.3.0 kept it: every complete subtree in
 * `tlog_nodes`, about 2 rows a leaf. On an SQLite file, or on PostgreSQL with
 * `BENCH_DATABASE_URL` (a server whose user may create a database; one is made and dropped).
 *
 *   npm run bench:migrations
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:migrations
 *
 * Prints one JSON line: the store, the leaves, the rows and bytes of `tlog_nodes` before and
 * after, and the migration's time, in all and per million leaves. The hashes are random: the
 * migration copies rows by their level and never reads a hash.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Migrator, sql } from 'kysely';
import { loadConfig } from '../src/platform/config.js';
import { createDb, type Db, isPostgres } from '../src/platform/db.js';
import { migrateToLatest, migrations } from '../src/platform/migrate.js';
import { testDataKey } from '../test/helpers/app.js';
import { dropDatabase, recreateDatabase } from './postgres.js';

const leaves = Number(process.env.BENCH_LEAVES ?? 1_000_000);
const adminUrl = process.env.BENCH_DATABASE_URL;
const logId = '0190e8a0-0000-7000-8000-00000000b0b0';

const dir = adminUrl ? undefined : mkdtempSync(join(tmpdir(), 'bench-log-nodes-'));
const dbName = `bench_log_nodes_${randomBytes(4).toString('hex')}`;
const url = adminUrl
  ? await recreateDatabase(adminUrl, dbName)
  : `file:${join(dir as string, 'consent.db')}`;
// Filling 20 million rows takes longer than the service lets a statement run.
const db = createDb(loadConfig({ DATABASE_URL: url, DATABASE_STATEMENT_TIMEOUT_MS: '0' }));

try {
  const before = Object.fromEntries(
    Object.entries(migrations(testDataKey)).filter(([name]) => name < '0048'),
  );
  const migrator = new Migrator({ db, provider: { getMigrations: async () => before } });
  const migrated = await migrator.migrateToLatest();
  if (migrated.error) throw migrated.error;

  for (let level = 0, width = 1; width <= leaves; level++, width *= 2) {
    const count = Math.floor(leaves / width);
    if (isPostgres(db)) {
      await sql`insert into tlog_nodes (log_id, level, idx, hash)
        select ${logId}, ${level}, i, md5(i::text) || md5((i + ${level})::text)
        from generate_series(0, ${count - 1}) as i`.execute(db);
    } else {
      await sql`with recursive n(i) as (select 0 union all select i + 1 from n where i < ${count - 1})
        insert into tlog_nodes (log_id, level, idx, hash)
        select ${logId}, ${level}, i, lower(hex(randomblob(32))) from n`.execute(db);
    }
  }
  if (isPostgres(db)) await sql`vacuum analyze tlog_nodes`.execute(db);

  const rowsBefore = await rows(db);
  const bytesBefore = await bytes(db);
  const started = performance.now();
  const applied = await migrateToLatest(db, testDataKey);
  const seconds = (performance.now() - started) / 1000;
  if (applied.join() !== '0048-log-nodes-from-level-4') {
    throw new Error(`applied ${applied.join(', ')}`);
  }
  console.log(
    JSON.stringify({
      store: isPostgres(db) ? 'postgres' : 'sqlite',
      leaves,
      rows: { before: rowsBefore, after: await rows(db) },
      bytes: { before: bytesBefore, after: await bytes(db) },
      seconds: round(seconds),
      seconds_per_million_leaves: round((seconds * 1_000_000) / leaves),
    }),
  );
} finally {
  await db.destroy();
  if (adminUrl) await dropDatabase(adminUrl, dbName);
  if (dir) rmSync(dir, { recursive: true, force: true });
}

async function rows(on: Db): Promise<number> {
  const { n } = await on
    .selectFrom('tlog_nodes')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(n);
}

/** The table and its key on disk: `dbstat` on SQLite, `pg_total_relation_size` on PostgreSQL. */
async function bytes(on: Db): Promise<number> {
  const query = isPostgres(on)
    ? sql<{ b: string }>`select pg_total_relation_size('tlog_nodes') as b`
    : sql<{ b: number }>`select sum(pgsize) as b from dbstat
        where name = 'tlog_nodes' or name in (select name from sqlite_master where tbl_name = 'tlog_nodes')`;
  return Number((await query.execute(on)).rows[0]?.b ?? 0);
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
