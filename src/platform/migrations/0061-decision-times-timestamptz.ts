import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * PostgreSQL: the decisions' times become `timestamptz` columns, 8 bytes instead of the 25 of
 * their ISO text, in the row and in every key that holds one: `decisions.decided_at` (with
 * `decisions_customer_time_idx` and `decisions_decided_at_idx`), and `last_decided_at` of
 * `customer_template_states` and `customer_version_states` (whose key carries it, for
 * `pending`). Each table is written again with its indexes, holding its lock (the cost a million
 * decisions is in CHANGELOG.md). Every time the service wrote is ISO 8601 in UTC with
 * milliseconds, which `timestamptz` keeps exactly and the service reads back as the same text
 * (src/platform/postgres.ts): answers, receipts and the log's leaves are unchanged.
 *
 * 0.9.0 runs on either form (it reads the store's type, src/platform/id-type.ts); 0.8.0 writes
 * its batches' times as `text[]`, which a `timestamptz` column refuses (`oldestRelease`).
 *
 * A store whose `decisions` is partitioned by time (`store partition`) keeps the three as text:
 * PostgreSQL changes no partition key's type, and the service's batches type the three alike.
 * The setting `decision_times_kept_as_text` says so. SQLite keeps every time as text.
 */
export const oldestRelease = '0.9.0';

const columns = [
  ['decisions', 'decided_at'],
  ['customer_template_states', 'last_decided_at'],
  ['customer_version_states', 'last_decided_at'],
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  const { rows: partitioned } = await sql<{ n: number }>`select count(*)::int as n from pg_class
    where relname = 'decisions' and relkind = 'p'
      and relnamespace = current_schema()::regnamespace`.execute(db);
  if ((partitioned[0]?.n ?? 0) > 0) {
    await sql`insert into store_settings (name, value, updated_at)
      values ('decision_times_kept_as_text', 'decisions is partitioned by time on decided_at',
        to_char(now() at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
      on conflict (name) do nothing`.execute(db);
    return;
  }
  for (const [table, column] of columns) {
    const { rows } = await sql<{ data_type: string }>`select data_type
      from information_schema.columns
      where table_schema = current_schema() and table_name = ${table}
        and column_name = ${column}`.execute(db);
    if (rows[0]?.data_type !== 'text') continue;
    await sql`alter table ${sql.table(table)} alter column ${sql.ref(column)}
      type timestamptz using ${sql.ref(column)}::timestamptz`.execute(db);
  }
}
