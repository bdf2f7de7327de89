import { type Kysely, SqliteAdapter, sql } from 'kysely';
import { keepErasedEvidence } from './0051-erased-evidence.js';

/**
 * `tlog_entries.leaf` keeps each leaf's hash alone, as 64 hex digits, instead of its text: the
 * text is rebuilt from the record whenever it is shown (a receipt, an evidence pack), and proofs
 * and the audit need only the hash (docs/proof.md, "A leaf's hash, not its text"). About 340
 * bytes a leaf become 65.
 *
 * Release 0.4.0 reads both; 0.3.0 reads the text and must not run after this
 * (`oldestRelease`). A 0.4.0 instance that runs beside this release during a rolling upgrade
 * still writes texts, which every reader takes too.
 *
 * First, the evidence commitment of every record of an erased subject that an erasure did not
 * keep (one made by 0.3.0 since 0051) is taken from its leaf's text while there is one: the
 * audit rebuilds such a record's leaf with it.
 */
export const oldestRelease = '0.4.0';

export async function up(db: Kysely<unknown>): Promise<void> {
  await keepErasedEvidence(db);
  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    await hashOnSqlite(db);
    return;
  }
  // The leaf hash of RFC 6962: SHA-256 of a 0x00 byte and the text, in the database itself, on
  // a partitioned table too. The rows' old versions are space the table's later rows take once
  // vacuum has passed (`VACUUM FULL tlog_entries` gives it back to the disk, the table locked).
  await sql`update tlog_entries
    set leaf = encode(sha256(decode('00', 'hex') || convert_to(leaf, 'UTF8')), 'hex')
    where leaf like 'consent-log/%'`.execute(db);
}

/**
 * SQLite would keep the rows' old pages, each now mostly empty, to the table (new leaves go after
 * the last): the table is made again from its own definition, kept in the order of its key
 * (`WITHOUT ROWID`, as 0050's are: its rows are now small, and the key is no longer stored twice),
 * its rows copied in that order with each text hashed (`sha256`, src/platform/sqlite.ts). The old
 * table's pages go to the file's free list, which every table's growth takes from.
 */
async function hashOnSqlite(db: Kysely<unknown>): Promise<void> {
  const { rows: schema } = await sql<{ type: string; sql: string }>`select type, sql
    from sqlite_master where tbl_name = 'tlog_entries' and sql is not null`.execute(db);
  const definition = schema.find((row) => row.type === 'table')?.sql ?? '';
  // The records' index is made once the rows are in, in one sorted pass: kept up row by row, its
  // random keys would have it rewrite its pages over and over.
  const recordKey = /,\s*constraint\s+"?tlog_entries_record_uq"?\s+unique\s*(\([^)]*\))/i;
  const recordColumns = recordKey.exec(definition)?.[1];
  const made = definition
    .replace(recordKey, '')
    .replace(/\)\s*without\s+rowid\s*$/i, ')')
    .replace(
      /^create table (if not exists )?"?tlog_entries"?/i,
      'create table "tlog_entries_hashed"',
    );
  if (!made.startsWith('create table "tlog_entries_hashed"')) {
    throw new Error('cannot read the definition of tlog_entries');
  }
  await sql.raw(`${made} without rowid`).execute(db);
  await sql`insert into tlog_entries_hashed (log_id, idx, record_id, leaf, integrated_at)
    select log_id, idx, record_id,
      case when leaf like 'consent-log/%' then lower(hex(sha256(char(0) || leaf))) else leaf end,
      integrated_at
    from tlog_entries order by log_id, idx`.execute(db);
  await sql`drop table tlog_entries`.execute(db);
  await sql`alter table tlog_entries_hashed rename to tlog_entries`.execute(db);
  if (recordColumns) {
    await sql
      .raw(`create unique index "tlog_entries_record_uq" on "tlog_entries" ${recordColumns}`)
      .execute(db);
  }
  for (const index of schema.filter((row) => row.type === 'index')) {
    await sql.raw(index.sql).execute(db);
  }
}
