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
    // The server enforces statement_timeout only if it hears from us; when the network itself
    // is cut, the client gives up a second later and the socket is probed by TCP keepalives.
    ...(settings.statementTimeoutMs > 0
      ? { query_timeout: settings.statementTimeoutMs + 1000 }
      : {}),
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    connectionTimeoutMillis: settings.connectTimeoutMs,
    idleTimeoutMillis: 30_000,
    application_name: 'consent-service',
    types: { getTypeParser: typeParser },
  });
  // A connection that breaks (server restart, failover, network) emits 'error': on an idle one the
  // pool listens; on one lent to a request nobody would, and the process would crash. The error
  // reaches the request through its query instead (503), and the pool drops the connection.
  pool.on('error', () => {});
  pool.on('connect', (client) => {
    client.on('error', () => {});
    dropOnReadTimeout(client);
    dropWhenReadOnly(client);
    useServerStatements(client);
  });
  // `end()` marks the connection as ending, so the pool closes it instead of keeping it.
  pool.on('release', (_error: unknown, client: pg.PoolClient) => {
    if (readOnlySessions.has(client)) void client.end().catch(() => {});
  });
  return new PostgresDialect({ pool });
}

/**
 * `timestamptz` columns are read as the ISO 8601 text every store's times are
 * (`2026-01-31T12:00:00.000Z`, `time.ts`), whatever the session's time zone: the same answers
 * from a store whose decisions' times are text and from one that keeps them as `timestamptz`
 * (8 bytes instead of 25, in the row and each key that holds them: `id-type.ts`).
 */
const typeParser = ((oid: number, format?: string) => {
  if (format === 'binary') return pg.types.getTypeParser(oid, format);
  if (oid === timestamptzOid) return isoFromTimestamptz;
  if (oid === byteaOid) return hexFromBytea;
  return pg.types.getTypeParser(oid, format as 'text');
}) as typeof pg.types.getTypeParser;

const timestamptzOid = 1184;
const byteaOid = 17;

/**
 * `bytea` columns hold what every store otherwise keeps as hex text (the log's leaf hashes,
 * `id-type.ts`): they are read as that text, lowercase hex without PostgreSQL's `\x`, whatever
 * the session's `bytea_output`.
 */
const parseBytea = pg.types.getTypeParser(byteaOid, 'text') as (text: string) => Buffer;
function hexFromBytea(text: string): string {
  return text.startsWith('\\x') ? text.slice(2) : parseBytea(text).toString('hex');
}

/** PostgreSQL's text form of a `timestamptz` (`2026-01-31 19:00:00.5+07`) as ISO 8601 in UTC. */
export function isoFromTimestamptz(text: string): string {
  // A session in UTC writes milliseconds as `2026-01-31 12:00:00.123+00`: read without parsing.
  if (text.length === 26 && text.endsWith('+00') && text[19] === '.') {
    return `${text.slice(0, 10)}T${text.slice(11, 23)}Z`;
  }
  const match =
    /^(\d{4,}-\d\d-\d\d) (\d\d:\d\d:\d\d)(\.\d+)?([+-]\d\d)(?::?(\d\d))?(?::?(\d\d))?$/.exec(text);
  if (!match) return text;
  const [, day, time, fraction = '', hours, minutes = '00', seconds] = match;
  const millis = `${fraction.slice(1, 4)}000`.slice(0, 3);
  const at =
    Date.parse(`${day}T${time}.${millis}${hours}:${minutes}`) -
    Number(seconds ?? 0) * 1000 * Math.sign(Number(`${hours}1`));
  return Number.isNaN(at) ? text : new Date(at).toISOString();
}

/** Statement texts to prepare on the server, with the name each connection prepares them under. */
const serverStatements = new Map<string, string>();

/**
 * Asks every connection to prepare this statement text once and reuse it: the server then skips
 * parsing and planning it on each run. For the statements of every request (see prepared.ts),
 * which run only once the schema is up to date: a prepared statement outlives a schema change.
 */
export function prepareOnServer(text: string): void {
  if (!serverStatements.has(text)) serverStatements.set(text, `cs_${serverStatements.size + 1}`);
}

function useServerStatements(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const [text, values, ...rest] = args;
    const name = typeof text === 'string' ? serverStatements.get(text) : undefined;
    return name ? query({ name, text, values }, ...rest) : query(...args);
  };
}

/**
 * After a client-side read timeout the connection is still waiting for the lost answer, and the
 * request's ROLLBACK would wait behind it. Closing the socket fails that ROLLBACK at once, and the
 * pool discards the connection when it is returned.
 */
function dropOnReadTimeout(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const result = query(...args);
    if (result instanceof Promise) {
      result.catch((error: unknown) => {
        if (error instanceof Error && error.message === 'Query read timeout') {
          (
            client as unknown as { connection: { stream: { destroy(): void } } }
          ).connection.stream.destroy();
        }
      });
    }
    return result;
  };
}

/** Connections whose session answered 25006: closed when they return to the pool. */
const readOnlySessions = new WeakSet<pg.PoolClient>();

/**
 * A session that found the database read-only (a primary turned standby, or
 * `default_transaction_read_only` set) stays so for its whole life, even once writes are
 * accepted again: the pool replaces it with a new connection, which sees the database as it is
 * now, after the request's transaction has ended.
 */
function dropWhenReadOnly(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const result = query(...args);
    if (result instanceof Promise) {
      result.catch((error: unknown) => {
        if ((error as { code?: unknown } | undefined)?.code === '25006') {
          readOnlySessions.add(client);
        }
      });
    }
    return result;
  };
}

export function isPostgresUrl(databaseUrl: string): boolean {
  return /^postgres(ql)?:\/\//i.test(databaseUrl);
}
