import { sql } from 'kysely';
import { type Db, isPostgres } from '../../src/platform/db.js';
import { resolveLogKey } from '../../src/platform/log-key.js';

/**
 * The entries of one log (`tlog_entries as e`), as a test reads or changes them itself: they name
 * their log by its number (`tlog_logs.no`, migration 0069), and this finds them by its id.
 */
export function entriesOfLog(db: Db, logId: string) {
  return db
    .selectFrom('tlog_entries as e')
    .where('e.log_no', '=', sql<number>`(select no from tlog_logs where log_id = ${logId})`);
}

/** The condition, for an update or a delete of `tlog_entries`, that an entry is of this log. */
export function inLog(logId: string) {
  return sql<boolean>`log_no = (select no from tlog_logs where log_id = ${logId})`;
}

/**
 * An entry's leaf (`e.leaf`) as 64 hex digits: PostgreSQL reads its `bytea` so on its own
 * (src/platform/postgres.ts), SQLite keeps its 32 bytes (migration 0069).
 */
export function leafHex(db: Db) {
  return (isPostgres(db) ? sql<string>`e.leaf` : sql<string>`lower(hex(e.leaf))`).as('leaf');
}

/**
 * The condition that an entry of `tlog_entries` is of this log, named as the store names it:
 * by its number since migration 0069, by its id before (a store a test made as an earlier
 * release left it).
 */
export async function ofLog(db: Db, logId: string) {
  return (await resolveLogKey(db)) === 'number' ? inLog(logId) : sql<boolean>`log_id = ${logId}`;
}
