import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * On PostgreSQL, the four keys of `cookie_decisions` that led with the tenant's id no longer
 * carry it, as 0054 did for `decisions`: the key by id (`cookie_decisions_pk`, now `(id)`), a
 * retry's by event (`cookie_decisions_event_uq`, now `(system_id, event_id)`), the visitor's
 * (`cookie_decisions_subject_idx`, now `(subject_id)`) and the signed-in customer's
 * (`cookie_decisions_customer`, now `(customer_subject_id, decided_at)`, still only for choices
 * made signed in). A choice's id, a website's id and a subject's id are UUIDs the service makes
 * and never shares between tenants, so each key finds the same rows without the tenant, and an
 * event id stays unique within its website as it was within the tenant's website; every query
 * still names the tenant, which is checked on the row the key leads to. The tenant's text id
 * took 37 bytes, 40 with alignment, in each of the four indexes of every choice.
 *
 * The key of `subjects` likewise (`subjects_pk`, now `(id)`): every customer and every website
 * visitor has a subject row. Its look-up's key keeps the tenant (`subjects_lookup_uq`, `(tenant_id,
 * lookup)`): a new subject's insert names it as the conflict to skip.
 *
 * SQLite keeps its keys, as it keeps the decisions' (0054).
 *
 * Same names, same rows, same uniqueness: the release before runs on (it names none of these
 * keys in a statement). The new indexes are built first under other names (writes to the tables
 * wait for the builds, reads go on), then swapped in at once. A table
 * partitioned by time (`store partition`) keeps the time in its primary key, made again at the
 * swap, and its event's index plain, as `src/platform/partitions.ts` makes them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  const { rows } = await sql<{ partitioned: boolean }>`select relkind = 'p' as partitioned
    from pg_class where oid = to_regclass('cookie_decisions')`.execute(db);
  const partitioned = rows[0]?.partitioned === true;
  // Built first, under names of their own: the old keys answer reads meanwhile. A partitioned
  // table's key cannot be given an index made beforehand.
  await sql`create unique index subjects_pk_new on subjects (id)`.execute(db);
  if (!partitioned) {
    await sql`create unique index cookie_decisions_pk_new on cookie_decisions (id)`.execute(db);
  }
  await sql`create ${sql.raw(partitioned ? '' : 'unique ')}index cookie_decisions_event_new
    on cookie_decisions (system_id, event_id)`.execute(db);
  await sql`create index cookie_decisions_subject_new on cookie_decisions (subject_id)`.execute(db);
  await sql`create index cookie_decisions_customer_new
    on cookie_decisions (customer_subject_id, decided_at)
    where customer_subject_id is not null`.execute(db);
  // Then swapped in, to the transaction's end.
  await sql`alter table subjects drop constraint subjects_pk,
    add constraint subjects_pk primary key using index subjects_pk_new`.execute(db);
  if (partitioned) {
    await sql`alter table cookie_decisions drop constraint cookie_decisions_pk,
      add constraint cookie_decisions_pk primary key (id, decided_at)`.execute(db);
    await renameOver(db, 'cookie_decisions_event_uq', 'cookie_decisions_event_new');
  } else {
    await sql`alter table cookie_decisions drop constraint cookie_decisions_pk,
      add constraint cookie_decisions_pk primary key using index cookie_decisions_pk_new`.execute(
      db,
    );
    await sql`alter table cookie_decisions drop constraint cookie_decisions_event_uq,
      add constraint cookie_decisions_event_uq unique using index cookie_decisions_event_new`.execute(
      db,
    );
  }
  await renameOver(db, 'cookie_decisions_subject_idx', 'cookie_decisions_subject_new');
  await renameOver(db, 'cookie_decisions_customer', 'cookie_decisions_customer_new');
}

/** Drops the index `old` and gives `made` its name. */
async function renameOver(db: Kysely<unknown>, old: string, made: string): Promise<void> {
  await sql`drop index ${sql.id(old)}`.execute(db);
  await sql`alter index ${sql.id(made)} rename to ${sql.id(old)}`.execute(db);
}
