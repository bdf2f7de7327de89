/**
 * A process killed at any statement of any migration leaves the store as it was before the
 * migrations it was applying, and the next start brings it to the schema an uninterrupted run
 * makes: on both stores, at every statement the migrator runs (its own bookkeeping included).
 *
 * The kill happens in this process, at the moment the statement would be sent:
 * - PostgreSQL: the server ends the migrating connection's backend (`pg_terminate_backend`),
 *   which is what it does when a client dies: its open transaction is rolled back.
 * - SQLite: the store's files are copied as they are on disk at that moment, which is what a
 *   `kill -9` leaves (the transaction's uncommitted pages are in the process's memory, or in WAL
 *   frames with no commit after them, which the next opening ignores); the copy is then opened.
 *
 * Each migration is applied from the store its predecessor left, with rows in it from the
 * second migration on (a tenant, a template, a published version, decisions), so the migrations
 * that rebuild tables and convert rows are killed half way through real work.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout } from 'node:timers/promises';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  Kysely,
  type QueryResult,
  sql,
  type TransactionSettings,
} from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { loadConfig } from '../../src/platform/config.js';
import type { Database } from '../../src/platform/database.js';
import { createDb, type Db } from '../../src/platform/db.js';
import {
  migrateToLatest,
  migrationChecks,
  migrations,
  serviceMigrator,
} from '../../src/platform/migrate.js';
import { createPostgresDialect } from '../../src/platform/postgres.js';
import { createSqliteDialect } from '../../src/platform/sqlite.js';
import { testDataKey } from '../helpers/app.js';
import { publishRow, seedTemplateRow, seedTenantRow } from '../helpers/seed.js';
import {
  postgresStore,
  sqliteStore,
  stores,
  type TestStore,
  useBareStore,
} from '../helpers/stores.js';
import { budget } from '../helpers/time.js';

class Killed extends Error {}

/** Called before the `n`th statement of a run; throws `Killed` to kill the run there. */
type Fault = (n: number, connection: DatabaseConnection, query: CompiledQuery) => Promise<void>;

/**
 * The store's own dialect (as `createDb` makes it), with every statement counted on its way to
 * the store and handed to `fault` first. The driver's own `begin`/`commit` are not counted: a
 * kill between the last statement and the commit is the kill before the next statement.
 */
function faultyDialect(inner: Dialect, fault: () => Fault | undefined): Dialect {
  return {
    createAdapter: () => inner.createAdapter(),
    createIntrospector: (db) => inner.createIntrospector(db),
    createQueryCompiler: () => inner.createQueryCompiler(),
    createDriver(): Driver {
      const driver = inner.createDriver();
      const inners = new WeakMap<DatabaseConnection, DatabaseConnection>();
      const of = (c: DatabaseConnection) => inners.get(c) ?? c;
      let count = 0;
      return {
        init: () => driver.init(),
        destroy: () => driver.destroy(),
        async acquireConnection() {
          const connection = await driver.acquireConnection();
          const wrapped: DatabaseConnection = {
            async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
              count += 1;
              await fault()?.(count, connection, query);
              return connection.executeQuery<R>(query);
            },
            streamQuery: (query, chunkSize) => connection.streamQuery(query, chunkSize),
          };
          inners.set(wrapped, connection);
          return wrapped;
        },
        beginTransaction: (c: DatabaseConnection, settings: TransactionSettings) =>
          driver.beginTransaction(of(c), settings),
        commitTransaction: (c: DatabaseConnection) => driver.commitTransaction(of(c)),
        rollbackTransaction: (c: DatabaseConnection) => driver.rollbackTransaction(of(c)),
        releaseConnection: (c: DatabaseConnection) => driver.releaseConnection(of(c)),
      };
    },
  };
}

/** How each store is opened, killed and read. */
interface Harness {
  /** The store, with `fault` consulted before each statement. */
  open(fault?: Fault): Db;
  /** Kills the run at this statement; returns what reads the store as the kill left it. */
  kill(connection: DatabaseConnection): Promise<() => Promise<Dump>>;
  /** Everything in the store now: its schema, and every table's rows. */
  dump(): Promise<Dump>;
  cleanUp(): Promise<void>;
}

interface Dump {
  schema: unknown[];
  rows: Record<string, string[]>;
}

const sorted = (rows: unknown[]) => rows.map((row) => JSON.stringify(row)).sort();

async function sqliteHarness(store: TestStore): Promise<Harness> {
  const { databaseUrl, drop } = await store.create();
  const scratch = mkdtempSync(join(tmpdir(), 'migration-kill-'));
  const killed = join(scratch, 'killed.db');
  const open = (fault?: Fault, path = databaseUrl) =>
    new Kysely<Database>({
      dialect: faultyDialect(createSqliteDialect(path, 5000), () => fault),
    });
  const dumpOf = async (path: string): Promise<Dump> => {
    const db = open(undefined, path);
    try {
      const schema = (
        await sql<{
          name: string;
          type: string;
          sql: string | null;
        }>`select type, name, sql from sqlite_master where name not like 'sqlite_%' order by type, name`.execute(
          db,
        )
      ).rows;
      const rows: Record<string, string[]> = {};
      for (const { name } of schema.filter((s) => s.type === 'table')) {
        rows[name] = sorted((await sql`select * from ${sql.table(name)}`.execute(db)).rows);
      }
      return { schema, rows };
    } finally {
      await db.destroy();
    }
  };
  return {
    open,
    async kill() {
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${killed}${suffix}`, { force: true });
      copyFileSync(databaseUrl, killed);
      if (existsSync(`${databaseUrl}-wal`)) copyFileSync(`${databaseUrl}-wal`, `${killed}-wal`);
      return () => dumpOf(killed);
    },
    dump: () => dumpOf(databaseUrl),
    async cleanUp() {
      rmSync(scratch, { recursive: true, force: true });
      await drop();
    },
  };
}

async function postgresHarness(store: TestStore): Promise<Harness> {
  const { databaseUrl, drop } = await store.create();
  const admin = new pg.Client({ connectionString: inject('postgresAdminUrl') });
  await admin.connect();
  const backends = new WeakMap<DatabaseConnection, number>();
  const open = (fault?: Fault) =>
    new Kysely<Database>({
      dialect: faultyDialect(
        createPostgresDialect({
          databaseUrl,
          poolSize: 1,
          statementTimeoutMs: 0,
          connectTimeoutMs: 10_000,
        }),
        () => fault,
      ),
    });
  // Reads the store between runs, on a connection of its own.
  const observer = open();
  const dump = async (): Promise<Dump> => {
    const { rows: schema } = await sql<{ schema: unknown[] }>`select json_build_array(
        (select coalesce(json_agg(c order by table_name, ordinal_position), '[]') from (select table_name,
          column_name, data_type, is_nullable, column_default, ordinal_position
          from information_schema.columns where table_schema = 'public') c),
        (select coalesce(json_agg(i order by indexname), '[]') from (select indexname, indexdef
          from pg_indexes where schemaname = 'public') i),
        (select coalesce(json_agg(k order by on_table, conname), '[]') from (select conrelid::regclass::text
          as on_table, conname, pg_get_constraintdef(oid) as definition from pg_constraint
          where connamespace = 'public'::regnamespace) k)) as schema`.execute(observer);
    const { rows: tables } = await sql<{
      tablename: string;
    }>`select tablename from pg_tables where schemaname = 'public'`.execute(observer);
    const rows: Record<string, string[]> = {};
    if (tables.length > 0) {
      const each = tables.map(
        ({ tablename }) =>
          sql`select ${tablename} as t, coalesce(json_agg(x), '[]') as r from ${sql.table(tablename)} x`,
      );
      const all = await sql<{
        t: string;
        r: unknown[];
      }>`${sql.join(each, sql` union all `)}`.execute(observer);
      for (const { t, r } of all.rows) rows[t] = sorted(r);
    }
    return { schema: schema[0]?.schema ?? [], rows };
  };
  return {
    open(fault) {
      return open(
        fault &&
          (async (n, connection, query) => {
            if (!backends.has(connection)) {
              const { rows } = await connection.executeQuery<{ pid: number }>(
                CompiledQuery.raw('select pg_backend_pid() as pid'),
              );
              backends.set(connection, rows[0]?.pid ?? 0);
            }
            await fault(n, connection, query);
          }),
      );
    },
    async kill(connection) {
      const pid = backends.get(connection);
      await admin.query('select pg_terminate_backend($1)', [pid]);
      // Until the backend has ended, its transaction rolled back (`pg_terminate_backend`'s own
      // wait looks every 100 ms).
      while (
        (await admin.query('select 1 from pg_stat_activity where pid = $1', [pid])).rowCount !== 0
      ) {
        await setTimeout(1);
      }
      return dump;
    },
    dump,
    async cleanUp() {
      await observer.destroy();
      await admin.end();
      await drop();
    },
  };
}

/** The rows of a store of the second migration's time (the tables it had then). */
async function seedEarlyRows(db: Db): Promise<void> {
  const a = await seedTenantRow(db);
  const code = await seedTemplateRow(db, a.tenant.id);
  const version = await publishRow(db, a.tenant.id, code, '<p>Consent text</p>');
  const { template_id } = await db
    .selectFrom('template_versions')
    .select('template_id')
    .where('id', '=', version.consent_version_id)
    .executeTakeFirstOrThrow();
  const decisions = [
    ['0190e8a0-0000-7000-8000-000000000001', 'alice', 1, 'given'],
    ['0190e8a0-0000-7000-8000-000000000002', 'alice', 2, 'withdraw'],
    ['0190e8a0-0000-7000-8000-000000000003', 'carol', 1, 'given'],
  ] as const;
  for (const [id, customer, seq, decision] of decisions) {
    await db
      .insertInto('decisions')
      .values({
        tenant_id: a.tenant.id,
        id,
        customer_id: customer,
        template_id,
        consent_version_id: version.consent_version_id,
        version: 1,
        decision,
        seq,
        decided_at: `2026-01-0${seq}T00:00:00.000Z`,
        api_key_id: a.apiKey.id,
        ip: '198.51.100.9',
        user_agent: 'Older/1.0',
        // SHA-256 (hex) of '<p>Consent text</p>'.
        content_sha256: 'e29b7d2e22b31f02ce9c520c6a8a70c0d2749340a1b15e11e9614e8a384f954f',
        idempotency_key: null,
      } as never)
      .execute();
  }
}

const names = Object.keys({ ...migrations(testDataKey), ...registry.migrations }).sort();
const harnesses: Record<TestStore['name'], (store: TestStore) => Promise<Harness>> = {
  sqlite: sqliteHarness,
  postgres: postgresHarness,
};

/**
 * The statements the migrator runs around every migration: its tables and their look-ups, its
 * lock, reading and recording what is applied, and keys turned off and on (SQLite).
 */
const migratorsOwn =
  /kysely_migration|pg_advisory|pragma foreign_keys =|sqlite_master|information_schema|pg_catalog|pg_namespace/i;

/** A dump without the migrator's bookkeeping tables (`kysely_migration`, `…_lock`). */
function withoutMigratorTables(dump: Dump): Dump {
  const mine = (entry: unknown) => JSON.stringify(entry).includes('kysely_migration');
  const schema = dump.schema.map((part) =>
    Array.isArray(part) ? part.filter((e) => !mine(e)) : part,
  );
  return {
    schema: schema.filter((entry) => Array.isArray(entry) || !mine(entry)),
    rows: Object.fromEntries(
      Object.entries(dump.rows).filter(([table]) => !table.startsWith('kysely_migration')),
    ),
  };
}

/** The schema, the migrations applied, and how many rows each table holds. */
function shape(dump: Dump) {
  return {
    schema: dump.schema,
    applied: (dump.rows.kysely_migration ?? []).map((row) => JSON.parse(row).name).sort(),
    counts: Object.fromEntries(Object.entries(dump.rows).map(([t, rows]) => [t, rows.length])),
  };
}

describe.each(stores)('migrations killed at every statement on $name', (store) => {
  let harness: Harness;
  let reference: Harness;
  beforeAll(async () => {
    harness = await harnesses[store.name](store);
    reference = await harnesses[store.name](store);
  });
  afterAll(async () => {
    await harness?.cleanUp();
    await reference?.cleanUp();
  });

  it(
    'leave the store as it was, and the next start migrates it as an uninterrupted run does',
    async () => {
      // The uninterrupted run, from the same rows.
      const uninterrupted = reference.open();
      expect(
        (await serviceMigrator(uninterrupted, testDataKey).migrateTo(names[1] as string)).error,
      ).toBeUndefined();
      await seedEarlyRows(uninterrupted);
      expect(
        (await serviceMigrator(uninterrupted, testDataKey, registry.migrations).migrateToLatest())
          .error,
      ).toBeUndefined();
      await uninterrupted.destroy();
      const expected = shape(await reference.dump());
      expect(expected.applied).toEqual(names);

      let kills = 0;
      for (const [m, name] of names.entries()) {
        if (m === 2) {
          const db = harness.open();
          await seedEarlyRows(db);
          await db.destroy();
        }
        const before = await harness.dump();
        // Killed before the 1st statement, then the 2nd, …, until a run gets through: the start
        // after the last kill, which applies the migration. The migrator's own statements (its
        // tables, its lock, reading and recording what is applied) are the same around every
        // migration: they are killed at around the first one only.
        for (let at = 1; ; ) {
          let left: (() => Promise<Dump>) | undefined;
          const db = harness.open(async (n, connection, query) => {
            if (left || n < at || (m > 0 && migratorsOwn.test(query.sql))) return;
            at = n;
            left = await harness.kill(connection);
            throw new Killed(`killed before statement ${n}`);
          });
          const result = await serviceMigrator(db, testDataKey, registry.migrations).migrateTo(
            name,
          );
          await db.destroy();
          if (!left) {
            expect(result.error, `${name}, run to the end`).toBeUndefined();
            expect(result.results?.map((r) => r.migrationName)).toEqual([name]);
            break;
          }
          kills += 1;
          expect(result.error, `${name}, killed before statement ${at}`).toBeInstanceOf(Error);
          const after = await left();
          if (shape(after).applied.includes(name)) {
            // Killed once the migration had committed, before the lock was let go (the last
            // statement of a run): the store is migrated, and the next start has nothing to do.
            const next = harness.open();
            const again = await serviceMigrator(next, testDataKey, registry.migrations).migrateTo(
              name,
            );
            await next.destroy();
            expect(again.error).toBeUndefined();
            expect(again.results).toEqual([]);
            break;
          }
          // A new store: the migrator makes its own two tables before taking its lock.
          const kept = m === 0 ? withoutMigratorTables(after) : after;
          expect(kept, `${name}, killed before statement ${at}`).toEqual(before);
          at += 1;
        }
      }
      expect(shape(await harness.dump())).toEqual(expected);
      // Each migration has statements of its own on top of the migrator's reads.
      expect(kills).toBeGreaterThan(names.length * 4);
    },
    budget(60_000),
  );
});

describe('a migration on SQLite that leaves a foreign key naming no row', () => {
  const bare = useBareStore(sqliteStore);

  it('fails, and is rolled back with the migrations applied with it', async () => {
    const { db } = bare;
    // Keys are off while migrations run (SQLite's procedure for rebuilding a table), so this
    // insert goes through; the check after the migration finds it.
    await expect(
      migrateToLatest(db, testDataKey, {
        '9999-dangling': {
          async up(trx) {
            await sql`create table parents (id text primary key)`.execute(trx);
            await sql`create table children (parent_id text references parents (id))`.execute(trx);
            await sql`insert into children values ('no such parent')`.execute(trx);
          },
        },
      }),
    ).rejects.toThrow(
      /^Migration 9999-dangling failed: it leaves 1 row\(s\) whose foreign key names no row/,
    );
    const tables = await sql<{
      name: string;
    }>`select name from sqlite_master where type = 'table' and name not like 'kysely_%'`.execute(
      db,
    );
    expect(tables.rows).toEqual([]);
    expect((await sql`pragma foreign_keys`.execute(db)).rows).toEqual([{ foreign_keys: 1 }]);
  });
});

describe('a migration on PostgreSQL that runs longer than a request may', () => {
  const bare = useBareStore(postgresStore);

  it('is not cancelled by the statement timeout that bounds requests, nor by the client a second later', async () => {
    const url = (await bare.db.executeQuery(CompiledQuery.raw('select current_database() as d')))
      .rows[0] as { d: string };
    const admin = new URL(inject('postgresAdminUrl'));
    admin.pathname = `/${url.d}`;
    // A pool whose statements the server cancels after 50 ms, as DATABASE_STATEMENT_TIMEOUT_MS
    // does, and whose client gives up on an answer 1,050 ms after asking.
    const config = loadConfig({
      DATABASE_URL: admin.toString(),
      DATABASE_STATEMENT_TIMEOUT_MS: '50',
    });
    const db = createDb(config);
    try {
      await expect(sql`select pg_sleep(0.2)`.execute(db)).rejects.toThrow(/statement timeout/);
      const applied = await migrateToLatest(
        db,
        testDataKey,
        {
          '9999-slow': {
            async up(trx) {
              await sql`select pg_sleep(1.5)`.execute(trx);
            },
          },
        },
        migrationChecks(config),
      );
      expect(applied.at(-1)).toBe('9999-slow');
    } finally {
      await db.destroy();
    }
  });
});
