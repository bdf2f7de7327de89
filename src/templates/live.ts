import { type Expression, type SqlBool, sql } from 'kysely';
import { nowIso } from '../platform/time.js';

/**
 * When a version is live, as one SQL condition for every query that needs it (this feature's
 * repository, and the record's): published, and its `published_at` (its go-live time) come. A
 * release approved for later is published with a future `published_at`; nothing the API reads
 * shows it before then. `alias` is the table's alias in the query, if it has one.
 */
export function isLive(alias?: string, at?: string): Expression<SqlBool> {
  const now = nowIso();
  return liveAt(alias, at !== undefined && at < now ? at : now);
}

/**
 * `isLive` as of `moment`, a value the caller gives: a prepared statement's stand-in for the
 * time of each run (`prepared` in platform), which must not be later than now.
 */
export function liveAt(alias: string | undefined, moment: unknown): Expression<SqlBool> {
  return sql<SqlBool>`(${column(alias, 'status')} = 'published' and ${column(alias, 'published_at')} <= ${moment})`;
}

/** A release approved to go live later: published, its go-live time still to come. */
export function isScheduledRow(alias?: string): Expression<SqlBool> {
  return sql<SqlBool>`(${column(alias, 'status')} = 'published' and ${column(alias, 'published_at')} > ${nowIso()})`;
}

function column(alias: string | undefined, name: string) {
  return sql.ref(alias === undefined ? name : `${alias}.${name}`);
}
