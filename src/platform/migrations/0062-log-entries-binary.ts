import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * PostgreSQL: the log's entries (`tlog_entries`) keep their leaf's hash as 32 bytes of `bytea`
 * instead of 64 hex digits of text (65 bytes), and the time each was logged as `timestamptz`
 * instead of its ISO text (25 bytes): about 49 bytes less for every record of every kind, in one
 * rewrite of the table with its indexes, holding its lock (the cost a million entries is in
 * CHANGELOG.md). A leaf kept as its text (0.4.0 wrote them so, and ran beside 0052) becomes its
 * hash, SHA-256 of 0x00 and the text (RFC 6962), which is all a proof and the audit read of it.
 * The service reads a `bytea` as the same lowercase hex and a `timestamptz` as the same ISO text
 * (src/platform/postgres.ts): receipts, proofs, exports and the audit are unchanged.
 *
 * 0.10.0 runs on either form (it reads the columns' types, src/platform/id-type.ts); 0.9.0 writes
 * an append's leaves and times as `text[]`, which the converted columns refuse (`oldestRelease`).
 *
 * A store whose log is partitioned by time (`store partition`) keeps `integrated_at` as text,
 * since PostgreSQL changes no partition key's type; the setting `log_times_kept_as_text` says so.
 * Its leaves are converted all the same. SQLite keeps both as text.
 */
export const oldestRelease = '0.10.0';

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  const { rows } = await sql<{ column_name: string; data_type: string }>`select column_name,
      data_type
    from information_schema.columns
    where table_schema = current_schema() and table_name = 'tlog_entries'
      and column_name in ('leaf', 'integrated_at')`.execute(db);
  const typeOf = (column: string) => rows.find((row) => row.column_name === column)?.data_type;
  const { rows: partitioned } = await sql<{ n: number }>`select count(*)::int as n from pg_class
    where relname = 'tlog_entries' and relkind = 'p'
      and relnamespace = current_schema()::regnamespace`.execute(db);
  const keptAsText = (partitioned[0]?.n ?? 0) > 0;
  if (keptAsText) {
    await sql`insert into store_settings (name, value, updated_at)
      values ('log_times_kept_as_text', 'tlog_entries is partitioned by time on integrated_at',
        to_char(now() at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
      on conflict (name) do nothing`.execute(db);
  }
  const changes = [];
  if (typeOf('leaf') === 'text') {
    changes.push(sql`alter column leaf type bytea using case
      when leaf ~ '^[0-9a-f]{64}$' then decode(leaf, 'hex')
      else sha256('\\x00'::bytea || convert_to(leaf, 'UTF8')) end`);
  }
  if (typeOf('integrated_at') === 'text' && !keptAsText) {
    changes.push(sql`alter column integrated_at type timestamptz using integrated_at::timestamptz`);
  }
  // One statement, so that the table is written again once for both.
  if (changes.length > 0) await sql`alter table tlog_entries ${sql.join(changes)}`.execute(db);
}
