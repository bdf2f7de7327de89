import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  type DialectAdapter,
  type Driver,
  type Kysely,
  SqliteAdapter,
  type SqliteDatabase,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
  sql,
} from 'kysely';
import { statementCache } from './sqlite-statements.js';

/**
 * Kysely opens SQLite transactions with a deferred `BEGIN`, which takes the write lock only at the
 * first write and then fails with SQLITE_BUSY if another process (the command line, say) wrote in
 * between. `BEGIN IMMEDIATE` takes the lock up front, so the busy timeout applies and every
 * read-then-write rule sees a stable store.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  readonly #database: SQLite.Database;

  constructor(config: SqliteDialectConfig, database: SQLite.Database) {
    super(config);
    this.#database = database;
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  /**
   * After SQLITE_FULL or an I/O error SQLite may already have rolled the transaction back
   * itself; a second `rollback` would fail ("no transaction is active") and Kysely would throw
   * that instead of the error that ended the transaction.
   */
  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (!this.#database.inTransaction) return;
    await super.rollbackTransaction(connection);
  }
}

/**
 * SQLite runs schema changes inside a transaction, but Kysely's adapter says it does not, so its
 * migrator ran each migration outside one: a process killed during the first start of a new
 * release left half a migration behind (a table made, its rows not yet copied), which neither
 * release would start on. Saying so makes the migrator run the pending migrations and their
 * records in one transaction, as on PostgreSQL: killed at any point, the store is as it was.
 */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }

  /**
   * Taken on the connection before the migrations' transaction opens, where SQLite's procedure
   * for changing a table's definition (make the new table, copy, drop the old, rename) wants
   * foreign keys off: with them on, dropping the old table would first delete its rows one by
   * one, checking each against the tables that name it. `migrateToLatest` checks every key
   * after each migration instead, inside the transaction. The lock between processes is the
   * transaction itself: `begin immediate` waits (busy timeout) while another process migrates,
   * and the migrator reads what is already applied only once it holds it.
   */
  override async acquireMigrationLock(db: Kysely<unknown>): Promise<void> {
    await sql`pragma foreign_keys = off`.execute(db);
  }

  override async releaseMigrationLock(db: Kysely<unknown>): Promise<void> {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  readonly #database: SQLite.Database;

  constructor(config: SqliteDialectConfig, database: SQLite.Database) {
    super(config);
    this.#config = config;
    this.#database = database;
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config, this.#database);
  }

  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}

/** Opens (creating if needed) the SQLite file with the settings that make a commit durable. */
export function createSqliteDialect(path: string, busyTimeoutMs: number): SqliteDialect {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const database = new SQLite(path, { timeout: busyTimeoutMs });
  database.pragma('journal_mode = WAL');
  // FULL syncs the WAL on every commit: a decision answered 2xx survives a power cut.
  database.pragma('synchronous = FULL');
  database.pragma('foreign_keys = ON');
  // Deleted content is overwritten with zeros, so an erased customer's key leaves no copy in
  // the file's free pages (docs/erasure.md).
  database.pragma('secure_delete = ON');
  // PostgreSQL's `sha256(bytea)`, so that a statement (a migration's) hashes alike on both stores.
  database.function('sha256', { deterministic: true }, (value: unknown) =>
    typeof value === 'string' || Buffer.isBuffer(value)
      ? createHash('sha256').update(value).digest()
      : null,
  );
  return new ImmediateSqliteDialect({ database: withStatementCache(database) }, database);
}

/** Kysely's SQLite database, its statements prepared once each (`sqlite-statements.ts`). */
function withStatementCache(database: SQLite.Database): SqliteDatabase {
  return { close: () => database.close(), prepare: statementCache(database) };
}

/** The file path an SQLite `DATABASE_URL` names: a path, or `file:` and a path. */
export function sqlitePath(databaseUrl: string): string {
  if (databaseUrl.startsWith('file://')) return decodeURIComponent(new URL(databaseUrl).pathname);
  if (databaseUrl.startsWith('file:')) return databaseUrl.slice('file:'.length);
  return databaseUrl;
}
