import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * On PostgreSQL, the customer's key by time of `decisions` (`decisions_customer_time_idx`) no
 * longer carries the decision's id: `(subject_id, decided_at)` instead of
 * `(subject_id, decided_at, id)`, 16 bytes less in every entry (an index of 500,000 such rows
 * takes 40.6 B a row instead of 58.9, bench/notebook.md, 2026-12-06). A page of a customer's
 * history still walks it newest first, and its seek after the last decision of the page before
 * (`(decided_at, id) < (…)`) seeks on the time; only the decisions of one same millisecond, if
 * any, are put in order of their id after it, among themselves.
 *
 * SQLite keeps its key: each of its entries carries the row's number, not the id, and it reads
 * a page of history by the whole key (bench/notebook.md, "the tenant out of the decisions'
 * keys", on how it plans).
 *
 * Same name, same rows: the release before runs on it (it names no index in a statement). The
 * new index is built first under another name (writes to `decisions` wait for the build, reads
 * go on), then swapped in, as 0054 does; a table partitioned by time gets it on every partition.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`create index decisions_customer_time_new on decisions (subject_id, decided_at)`.execute(
    db,
  );
  await sql`drop index decisions_customer_time_idx`.execute(db);
  await sql`alter index decisions_customer_time_new rename to decisions_customer_time_idx`.execute(
    db,
  );
}
