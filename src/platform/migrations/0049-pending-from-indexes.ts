import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * On PostgreSQL, `pending`'s look-up reads two indexes and no table row (docs/scaling.md,
 * "PostgreSQL's memory"): the customers' look-up index carries the subject's id, and the key of
 * `customer_version_states` carries the two columns `pending` answers with (`INCLUDE`, outside
 * the key: uniqueness and every `ON CONFLICT` stay as they were). Index-only scans walk about
 * half the pages the index-and-row reads did, so the pages a store must keep in memory for
 * `pending` halve too. Same names, same keys: the release before runs on.
 *
 * Each index is built under a new name before the old one goes, in the migrations' transaction:
 * writes to both tables wait for the builds (the time a million customers takes is in
 * CHANGELOG.md), reads only for the swap at the end. SQLite has no `INCLUDE` and keeps its indexes: its
 * look-ups read rows from a memory-mapped file at the price of an index entry.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  // Both built first (writes wait, reads go on), then swapped in at once: reads wait only for
  // the swap, to the transaction's end.
  await sql`create unique index subjects_lookup_cover
    on subjects (tenant_id, lookup) include (id)`.execute(db);
  await sql`create unique index customer_version_states_cover
    on customer_version_states (tenant_id, subject_id, consent_version_id)
    include (last_decision, last_decided_at)`.execute(db);
  await sql`drop index subjects_lookup_uq`.execute(db);
  await sql`alter index subjects_lookup_cover rename to subjects_lookup_uq`.execute(db);
  // The new index becomes the key under the key's name.
  await sql`alter table customer_version_states
    drop constraint customer_version_states_pk,
    add constraint customer_version_states_pk primary key
      using index customer_version_states_cover`.execute(db);
}
