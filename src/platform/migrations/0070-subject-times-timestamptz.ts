import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * PostgreSQL: a subject's times (`subjects.created_at`, `erased_at`) become `timestamptz`
 * instead of ISO text: 8 bytes instead of 25 each, in a row every customer has, in one rewrite
 * of the table with its keys, holding its lock (the cost a million customers is in
 * CHANGELOG.md). The service reads a `timestamptz` as the same ISO text (src/platform/postgres.ts):
 * nothing it answers changes.
 *
 * 0.17.0 runs on either form (`subjectTimes`, src/platform/id-type.ts); 0.16.0 writes a batch of
 * new subjects' times as text arrays, which the converted columns refuse (`oldestRelease`).
 * SQLite keeps them as text.
 */
export const oldestRelease = '0.17.0';

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  const { rows } = await sql<{ data_type: string }>`select data_type from information_schema.columns
    where table_schema = current_schema() and table_name = 'subjects'
      and column_name = 'created_at'`.execute(db);
  // Run again on a store it converted, it leaves it.
  if (rows[0]?.data_type !== 'text') return;
  // One statement, so that the table is written again once for both.
  await sql`alter table subjects
    alter column created_at type timestamptz using created_at::timestamptz,
    alter column erased_at type timestamptz using erased_at::timestamptz`.execute(db);
}
