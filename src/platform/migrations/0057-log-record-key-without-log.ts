import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * On PostgreSQL, the log's key by record (`tlog_entries_record_uq`) no longer carries the log's
 * id: `(record_id)` instead of `(log_id, record_id)`. A log is a tenant's (its id is the
 * tenant's), a record's id is a UUID the service makes and never shares between tenants, and a
 * record is appended once to its tenant's log, across its epochs too; so the key finds the same
 * entry without the log, and every query still names the log, which is checked on the row the
 * key leads to. The log's text id took 37 bytes, 40 with alignment, in the key's entry of every
 * record logged.
 *
 * SQLite keeps its key: its `tlog_entries` is kept in the order of its primary key
 * (`log_id, idx`, migration 0052), whose columns each of its other keys carries anyway.
 *
 * Same name, same rows; the key is unique over record ids alone, which every record id the
 * service has made already is. The release before runs on (it names the key in no statement,
 * and the records it appends have ids of the same kind). The new key is built first under
 * another name (appends wait for the build, reads go on), then swapped in. A table partitioned
 * by time (`store partition`) holds it as a plain index (src/platform/partitions.ts), and it
 * stays plain: a record is queued once (`tlog_pending`'s key) and appended once from the queue.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  const { rows } = await sql<{ partitioned: boolean }>`select relkind = 'p' as partitioned
    from pg_class where oid = to_regclass('tlog_entries')`.execute(db);
  const partitioned = rows[0]?.partitioned === true;
  await sql`create ${sql.raw(partitioned ? '' : 'unique ')}index tlog_entries_record_new
    on tlog_entries (record_id)`.execute(db);
  if (partitioned) {
    await sql`drop index tlog_entries_record_uq`.execute(db);
    await sql`alter index tlog_entries_record_new rename to tlog_entries_record_uq`.execute(db);
  } else {
    await sql`alter table tlog_entries drop constraint tlog_entries_record_uq,
      add constraint tlog_entries_record_uq unique using index tlog_entries_record_new`.execute(db);
  }
}
