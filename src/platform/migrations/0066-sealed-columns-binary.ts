import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * PostgreSQL: the sealed columns (the personal fields sealed under a customer's key, the salts of
 * the evidence and of the subject, the subject's wrapped key and commitment) keep their bytes as
 * `bytea` instead of their base64 as text: three quarters of the size, about 49 bytes a decision
 * and 41 a customer less. Each table is written again with its indexes, holding its lock (the
 * cost a million records is in CHANGELOG.md). The service reads a `bytea` one as the same base64
 * (`sealedColumn`, src/platform/id-type.ts): no answer, receipt or evidence changes. An erased
 * customer's key and salt are null, and stay so.
 *
 * 0.14.0 runs on either form (it reads the column's type with the store's others); 0.13.0 reads
 * them as text (`oldestRelease`).
 *
 * A value converts only if it is base64 as Node writes it (no line break, no space, the padding
 * and its last bits as they must be), so that it reads back as the service sealed it; the check
 * is the conversion's own expression, so each table is read once. A store holding another (put
 * in by hand or by a tool) keeps all of them as text, since the service reads them as one type:
 * the conversion is rolled back, the store runs as before, and the setting `sealed_kept_as_text`
 * names the column and the row. SQLite keeps them as text.
 */
export const oldestRelease = '0.14.0';

/** The sealed columns by table, as this migration found them (history: not the live list). */
const sealed = {
  decisions: ['personal', 'evidence_salt'],
  cookie_decisions: ['personal', 'evidence_salt'],
  channel_changes: ['personal', 'evidence_salt'],
  partner_block_changes: ['personal', 'evidence_salt'],
  request_steps: ['personal', 'evidence_salt'],
  subject_requests: ['personal'],
  subjects: ['wrapped_key', 'salt', 'commitment'],
} as const;

/** Base64 exactly as Node's `toString('base64')` writes it: whole groups, zero padding bits. */
const canonical =
  '^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/][AQgw]==|[A-Za-z0-9+/]{2}[AEIMQUYcgkosw048]=)?$';

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  const { rows } = await sql<{ data_type: string }>`select data_type
    from information_schema.columns
    where table_schema = current_schema() and table_name = 'decisions'
      and column_name = 'personal'`.execute(db);
  if (rows[0]?.data_type !== 'text') return;
  const entries = Object.entries(sealed);
  // A value that does not come back as it was from its bytes fails its decode on purpose ('!'
  // is no base64): the block's handler rolls every table back.
  const alters = entries.map(([table, columns]) => {
    const changes = columns.map(
      (c) => `alter column ${c} type bytea using case
        when ${c} is null then null
        when replace(encode(decode(${c}, 'base64'), 'base64'), E'\\n', '') = ${c}
          then decode(${c}, 'base64')
        else decode('!' || ${c}, 'base64') end`,
    );
    return `alter table ${table} ${changes.join(', ')};`;
  });
  // What stopped it, found again only then: the first value that is not such base64.
  const firstOther = entries
    .flatMap(([table, columns]) =>
      columns.map(
        (c) => `(select '${table}.${c}, row ' || id::text from ${table}
          where ${c} !~ '${canonical}' limit 1)`,
      ),
    )
    .join(', ');
  await sql`do $convert$
declare
  found text;
begin
  ${sql.raw(alters.join('\n  '))}
exception when invalid_parameter_value then
  found := coalesce(${sql.raw(firstOther)});
  insert into store_settings (name, value, updated_at)
  values ('sealed_kept_as_text',
    'a sealed column holds a value that is no base64 as the service writes it: ' || coalesce(found, sqlerrm),
    to_char(now() at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
  on conflict (name) do update set value = excluded.value, updated_at = excluded.updated_at;
end
$convert$`.execute(db);
}
