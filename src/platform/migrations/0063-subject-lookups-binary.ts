import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * PostgreSQL: a subject's keyed look-up (`subjects.lookup`, the HMAC of the customer's id under
 * the tenant's look-up key) is kept as 32 bytes of `bytea` instead of 64 hex digits of text:
 * 32 bytes less in the row and again in `subjects_lookup_uq`, the key every request finds its
 * customer by (a customer a decision or two, a cookie choice's new visitor each). The table is
 * written again with its indexes, holding its lock (the cost a million subjects is in
 * CHANGELOG.md). The service reads a `bytea` as the same lowercase hex (src/platform/postgres.ts)
 * and gives the look-ups it asks for as hex: no answer changes. An erased subject's look-up is
 * null, and stays so.
 *
 * 0.11.0 runs on either form (it reads the column's type, src/platform/id-type.ts); 0.10.0 gives
 * its look-ups as text, which a `bytea` column would not match (`oldestRelease`).
 *
 * The service only ever writes lowercase hex. A store holding another look-up (put in by hand or
 * by a tool) keeps the column as text, since no statement could find that customer after the
 * conversion; the setting `lookups_kept_as_text` names the subject. SQLite keeps it as text.
 */
export const oldestRelease = '0.11.0';

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  const { rows } = await sql<{ data_type: string }>`select data_type
    from information_schema.columns
    where table_schema = current_schema() and table_name = 'subjects'
      and column_name = 'lookup'`.execute(db);
  if (rows[0]?.data_type !== 'text') return;
  const { rows: other } = await sql<{ id: string }>`select id::text as id from subjects
    where lookup !~ '^[0-9a-f]{64}$' limit 1`.execute(db);
  if (other[0]) {
    await sql`insert into store_settings (name, value, updated_at)
      values ('lookups_kept_as_text',
        ${`subjects holds a look-up that is no SHA-256 HMAC in lowercase hex: subject ${other[0].id}`},
        to_char(now() at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
      on conflict (name) do nothing`.execute(db);
    return;
  }
  await sql`alter table subjects alter column lookup type bytea
    using decode(lookup, 'hex')`.execute(db);
}
