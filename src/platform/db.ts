import { Kysely, type LogEvent, PostgresAdapter, type Transaction } from 'kysely';
import type { Config } from './config.js';
import type { Database } from './database.js';
import { createPostgresDialect, isPostgresUrl } from './postgres.js';
import { createSqliteDialect, sqlitePath } from './sqlite.js';

export type Db = Kysely<Database>;
export type Trx = Transaction<Database>;
/**
 * Either the store or a transaction on it: reads and single-statement writes accept both; a
 * function that writes more than one statement takes a `Trx` (see this folder's README).
 */
export type Executor = Db | Trx;

export type StoreSettings = Pick<
  Config,
  | 'databaseUrl'
  | 'sqliteBusyTimeoutMs'
  | 'databasePoolSize'
  | 'databaseStatementTimeoutMs'
  | 'databaseConnectTimeoutMs'
>;

/** Told of every statement once it is over (Kysely's `log`): the metrics and the traces. */
export type QueryObserver = (event: LogEvent) => void;

/**
 * The one place that picks the store from `DATABASE_URL`: PostgreSQL for a URL, else SQLite.
 * Without an observer, Kysely times nothing.
 */
export function createDb(config: StoreSettings, onQuery?: QueryObserver): Db {
  const log = onQuery ? { log: onQuery } : {};
  if (isPostgresUrl(config.databaseUrl)) {
    return new Kysely<Database>({
      ...log,
      dialect: createPostgresDialect({
        databaseUrl: config.databaseUrl,
        poolSize: config.databasePoolSize,
        statementTimeoutMs: config.databaseStatementTimeoutMs,
        connectTimeoutMs: config.databaseConnectTimeoutMs,
      }),
    });
  }
  const path = sqlitePath(config.databaseUrl);
  return new Kysely<Database>({
    ...log,
    dialect: createSqliteDialect(path, config.sqliteBusyTimeoutMs),
  });
}

export function isPostgres(db: Executor): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

// Locked or busy, an I/O error, a full disk, a read-only file or connection, a file that cannot
// be opened or is not a database. SQLite rolls the whole transaction back itself after some of
// these (SQLITE_FULL, SQLITE_IOERR_*): see the driver in sqlite.ts.
const sqliteUnavailable = /^SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|FULL|READONLY|PROTOCOL|NOTADB)/;
// Connection exceptions (08), a read-only transaction (25006: a standby, or
// `default_transaction_read_only`), insufficient resources (53: disk full, out of memory, too
// many connections), a database not accepting connections (55000), operator intervention (57:
// shutdown, restart, cancelled by the statement timeout), system errors (58: I/O), and the
// socket errors of an unreachable server.
const postgresUnavailable =
  /^(08|53|57|58)[0-9A-Z]{3}$|^(25006|55000)$|^E(CONNREFUSED|CONNRESET|TIMEDOUT|PIPE|NOTFOUND|AI_AGAIN|HOSTUNREACH|NETUNREACH)$/;
const unavailableMessages =
  /driver has already been destroyed|database connection is not open|Connection terminated|timeout exceeded when trying to connect|connection error|not queryable|Query read timeout|Cannot use a pool after calling end/i;

/**
 * The code of the error the jobs in flight fail with when the SQLite writer thread stops
 * unasked (`platform/writer-thread.ts`): a store fault like any other, answered 503.
 */
export const writerStoppedCode = 'WRITER_STOPPED';
/** The same for an SQLite reader thread (`platform/reader-threads.ts`). */
export const readerStoppedCode = 'READER_STOPPED';

/**
 * The one classification of store errors: true when an error means the store cannot do what was
 * asked right now (locked, unreachable, restarting, closed, full, read-only, refusing
 * connections), as opposed to a bug. Such requests answer 503 1009 with `Retry-After` and may be
 * retried; the writers of decisions count such failures for the health check.
 */
export function isStoreUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (
    typeof code === 'string' &&
    (sqliteUnavailable.test(code) ||
      postgresUnavailable.test(code) ||
      code === writerStoppedCode ||
      code === readerStoppedCode)
  ) {
    return true;
  }
  if (error instanceof AggregateError && error.errors.some(isStoreUnavailable)) return true;
  return unavailableMessages.test(error.message);
}

/**
 * True when PostgreSQL ended a transaction to break a deadlock (`40P01`) or a serialization
 * conflict (`40001`): nothing of it was written, and the same transaction may simply run again.
 */
export function isTransientConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === '40P01' || code === '40001';
}

/** True for a unique-key violation: two writers raced for the same name or number. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return (
    code === '23505' ||
    code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  );
}
