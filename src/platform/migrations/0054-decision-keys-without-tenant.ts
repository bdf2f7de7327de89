import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * On PostgreSQL, the three keys of `decisions` that led with the tenant's id no longer carry it:
 * the key by id (`decisions_pk`, now `(id)`), the history's (`decisions_history_uq`, now
 * `(subject_id, template_id, seq)`) and the customer's by time (`decisions_customer_time_idx`,
 * now `(subject_id, decided_at, id)`). A decision's id and a customer's subject id are UUIDs
 * the service makes (v7, time and random bits) and never shares between tenants, so each key
 * finds the same rows without the tenant; every query still names the tenant, which is checked
 * on the row the key leads to. The tenant's text id took 37 bytes, 40 with alignment, in each of
 * the three indexes of every decision. `decisions_decided_at_idx` (tenant_id, decided_at) keeps
 * it: it is how a tenant's decisions are read by time.
 *
 * SQLite keeps its keys: it plans without statistics, and with the tenant gone from the
 * customer's key it takes the tenant's index by time for a customer's decision as of a moment,
 * a walk of every decision of the tenant before that moment (bench/notebook.md, "the tenant
 * out of the decisions' keys").
 *
 * Same names, same columns, same rows: the release before runs on (it names none of these keys
 * in a statement, and its inserts meet the same uniqueness). The new indexes are built first
 * under other names (writes to `decisions` wait for the builds, reads go on), then swapped in at
 * once, as 0049 does. A table partitioned by time (`store partition`) keeps the time in its
 * primary key, made again at the swap, and its history's index plain, as
 * `src/platform/partitions.ts` makes them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  const { rows } = await sql<{ partitioned: boolean }>`select relkind = 'p' as partitioned
    from pg_class where oid = to_regclass('decisions')`.execute(db);
  const partitioned = rows[0]?.partitioned === true;
  // Built first, under names of their own: the old keys answer reads meanwhile. A partitioned
  // table's key cannot be given an index made beforehand.
  if (!partitioned) await sql`create unique index decisions_pk_new on decisions (id)`.execute(db);
  await sql`create ${sql.raw(partitioned ? '' : 'unique ')}index decisions_history_new
    on decisions (subject_id, template_id, seq)`.execute(db);
  await sql`create index decisions_customer_time_new
    on decisions (subject_id, decided_at, id)`.execute(db);
  // Then swapped in, to the transaction's end.
  if (partitioned) {
    await sql`alter table decisions drop constraint decisions_pk,
      add constraint decisions_pk primary key (id, decided_at)`.execute(db);
    await sql`drop index decisions_history_uq`.execute(db);
    await sql`alter index decisions_history_new rename to decisions_history_uq`.execute(db);
  } else {
    await sql`alter table decisions drop constraint decisions_pk,
      add constraint decisions_pk primary key using index decisions_pk_new`.execute(db);
    await sql`alter table decisions drop constraint decisions_history_uq,
      add constraint decisions_history_uq unique using index decisions_history_new`.execute(db);
  }
  await sql`drop index decisions_customer_time_idx`.execute(db);
  await sql`alter index decisions_customer_time_new rename to decisions_customer_time_idx`.execute(
    db,
  );
}
