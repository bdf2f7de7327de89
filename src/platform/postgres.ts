import { PostgresDialect } from 'kysely';
import pg from 'pg';

export interface PostgresSettings {
  databaseUrl: string;
  poolSize: number;
  statementTimeoutMs: number;
  connectTimeoutMs: number;
}

/**
 * A pool per process. TLS comes from the URL (`sslmode=require`, `verify-full`, `sslrootcert=…`),
 * as `pg` reads it. A statement that runs longer than the timeout is cancelled by the server, and
 * a connection that cannot be made in time fails fast, so a store in trouble answers 503 quickly
 * instead of piling up requests.
 */
export function createPostgresDialect(settings: PostgresSettings): PostgresDialect {
  const pool = new pg.Pool({
    connectionString: settings.databaseUrl,
    max: settings.poolSize,
    statement_timeout: settings.statementTimeoutMs,
    connectionTimeoutMillis: settings.connectTimeoutMs,
    idleTimeoutMillis: 30_000,
    application_name: 'consent-service',
  });
  // An idle connection that breaks (server restart, failover) is dropped by the pool; without a
  // listener the error would crash the process. The next query opens a fresh connection.
  pool.on('error', () => {});
  return new PostgresDialect({ pool });
}

export function isPostgresUrl(databaseUrl: string): boolean {
  return /^postgres(ql)?:\/\//i.test(databaseUrl);
}
