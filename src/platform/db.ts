import { Kysely, type Transaction } from 'kysely';
import type { Config } from './config.js';
import { ConfigError } from './config.js';
import type { Database } from './database.js';
import { createSqliteDialect, sqlitePath } from './sqlite.js';

export type Db = Kysely<Database>;
export type Trx = Transaction<Database>;
/** Either the store or a transaction on it: read functions accept both. */
export type Executor = Db | Trx;

/** The one place that picks the store from `DATABASE_URL`. */
export function createDb(config: Pick<Config, 'databaseUrl' | 'sqliteBusyTimeoutMs'>): Db {
  const path = sqlitePath(config.databaseUrl);
  if (path === undefined) {
    throw new ConfigError(
      'DATABASE_URL names a PostgreSQL server; this build runs on the embedded SQLite store only.',
    );
  }
  return new Kysely<Database>({ dialect: createSqliteDialect(path, config.sqliteBusyTimeoutMs) });
}

const unavailableCodes = /^SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|FULL|READONLY|PROTOCOL|NOTADB)/;

/**
 * True when an error means the store cannot answer right now (locked, unreachable, closed),
 * as opposed to a bug: such requests answer 503 1009 and may be retried.
 */
export function isStoreUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && unavailableCodes.test(code)) return true;
  return /driver has already been destroyed|database connection is not open/i.test(error.message);
}
