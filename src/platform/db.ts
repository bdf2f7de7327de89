import { Kysely, PostgresAdapter, type Transaction } from 'kysely';
import type { Config } from './config.js';
import type { Database } from './database.js';
import { createPostgresDialect, isPostgresUrl } from './postgres.js';
import { createSqliteDialect, sqlitePath } from './sqlite.js';

export type Db = Kysely<Database>;
export type Trx = Transaction<Database>;
/** Either the store or a transaction on it: read functions accept both. */
export type Executor = Db | Trx;

export type StoreSettings = Pick<
  Config,
  | 'databaseUrl'
  | 'sqliteBusyTimeoutMs'
  | 'databasePoolSize'
  | 'databaseStatementTimeoutMs'
  | 'databaseConnectTimeoutMs'
>;

/** The one place that picks the store from `DATABASE_URL`: PostgreSQL for a URL, else SQLite. */
export function createDb(config: StoreSettings): Db {
  if (isPostgresUrl(config.databaseUrl)) {
    return new Kysely<Database>({
      dialect: createPostgresDialect({
        databaseUrl: config.databaseUrl,
        poolSize: config.databasePoolSize,
        statementTimeoutMs: config.databaseStatementTimeoutMs,
        connectTimeoutMs: config.databaseConnectTimeoutMs,
      }),
    });
  }
  const path = sqlitePath(config.databaseUrl);
  return new Kysely<Database>({ dialect: createSqliteDialect(path, config.sqliteBusyTimeoutMs) });
}

export function isPostgres(db: Executor): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

const sqliteUnavailable = /^SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|FULL|READONLY|PROTOCOL|NOTADB)/;
// Connection exceptions (08), operator intervention (57: shutdown, cancelled by the statement
// timeout), insufficient resources (53), and the socket errors of an unreachable server.
const postgresUnavailable =
  /^(08|57|53)[0-9A-Z]{3}$|^E(CONNREFUSED|CONNRESET|TIMEDOUT|PIPE|NOTFOUND|AI_AGAIN|HOSTUNREACH|NETUNREACH)$/;
const unavailableMessages =
  /driver has already been destroyed|database connection is not open|Connection terminated|timeout exceeded when trying to connect|connection error|not queryable|Query read timeout|Cannot use a pool after calling end/i;

/**
 * True when an error means the store cannot answer right now (locked, unreachable, restarting,
 * closed), as opposed to a bug: such requests answer 503 1009 and may be retried.
 */
export function isStoreUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (
    typeof code === 'string' &&
    (sqliteUnavailable.test(code) || postgresUnavailable.test(code))
  ) {
    return true;
  }
  if (error instanceof AggregateError && error.errors.some(isStoreUnavailable)) return true;
  return unavailableMessages.test(error.message);
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
