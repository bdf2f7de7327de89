import { type DialectAdapter, sql } from 'kysely';
import { type Executor, isPostgres } from './db.js';

/**
 * How the log's entries (`tlog_entries`) name their log: by its id (`log_id`, the tenant's, 16
 * bytes on PostgreSQL and 37 on SQLite, as every store has kept them so far), or by its number
 * (`log_no`, `tlog_logs.no`: 4 bytes, 1 to 2 on SQLite). Read once a store from its catalogue,
 * and again after each migration (`forgetLogKey`); the decision log's statements, and the few
 * that join a record to its entry, are built for the one the store has.
 */
export type LogKey = 'id' | 'number';

const known = new WeakMap<DialectAdapter, LogKey>();

/**
 * The store's log key, read from its catalogue the first time. A store not yet migrated (no
 * `tlog_entries`) answers `id` and is asked again next time.
 */
export async function resolveLogKey(db: Executor): Promise<LogKey> {
  const adapter = db.getExecutor().adapter;
  const now = known.get(adapter);
  if (now) return now;
  const { rows } = isPostgres(db)
    ? await sql<{ name: string }>`select column_name::text as name
        from information_schema.columns
        where table_schema = current_schema() and table_name = 'tlog_entries'
          and column_name in ('log_id', 'log_no')`.execute(db)
    : await sql<{ name: string }>`select name from pragma_table_info('tlog_entries')
        where name in ('log_id', 'log_no')`.execute(db);
  if (rows.length === 0) return 'id';
  const key: LogKey = rows.some((row) => row.name === 'log_no') ? 'number' : 'id';
  known.set(adapter, key);
  return key;
}

/** Forgets the store's log key, to be read again: a migration may change it. */
export function forgetLogKey(db: { getExecutor(): { readonly adapter: DialectAdapter } }): void {
  known.delete(db.getExecutor().adapter);
}

/**
 * The condition that a log entry (`entry`, an alias of `tlog_entries`) is the one of a record
 * (`recordId` and its tenant's `tenantId`, columns of the joined table): by the log and the
 * record's id where entries name their log by its id (SQLite's key by record leads with it); by
 * the record's id alone where they name it by its number, since a record's id is one the service
 * made and never shares between tenants, and both stores key entries by it.
 */
export function entryOfRecord(key: LogKey, entry: string, tenantId: string, recordId: string) {
  const sameRecord = sql<boolean>`${sql.ref(`${entry}.record_id`)} = ${sql.ref(recordId)}`;
  return key === 'number'
    ? sameRecord
    : sql<boolean>`${sql.ref(`${entry}.log_id`)} = ${sql.ref(tenantId)} and ${sameRecord}`;
}
