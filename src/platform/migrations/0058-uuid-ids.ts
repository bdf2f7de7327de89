import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * On PostgreSQL, the store's ids become `uuid` columns: 16 bytes in every row and key that
 * carries one, where their text took 37 (40 with alignment). Every `id` and `…_id` column of
 * the store's tables, a kind's too, but those that hold no UUID the service makes (`keptAsText`).
 * Release 0.6.0 runs on such a store as on text ids (it reads the store's id type when it starts),
 * so it is this migration's oldest release.
 *
 * One statement does it all on the server: the foreign keys are dropped, each table is altered
 * once for all its id columns (PostgreSQL rewrites it and builds its indexes again, a partitioned
 * table with its partitions), and the keys are made again. A column's text must be a UUID as
 * PostgreSQL writes one (lower case, with its hyphens), so that an id reads back as it was
 * logged and signed; an empty id, which releases before 0.6.0 wrote where an id named no record
 * (`lapse_progress.through_id`), becomes the nil UUID that says the same now.
 *
 * A store holding an id that is no UUID (put there by hand, or by a tool) keeps every id as
 * text, since the statements compare ids of one type: the conversion is rolled back, the store
 * runs as before, and the setting `ids_kept_as_text` says which column and id stopped it
 * (docs/upgrades.md). SQLite keeps its ids as text.
 */
export const oldestRelease = '0.6.0';

/** The id columns that hold what a client, a provider or a standard names, or a role's name. */
export const keptAsText = [
  'customer_id',
  'event_id',
  'external_id',
  'client_id',
  'credential_id',
  'email_key_id',
  'role_id',
  'roles.id',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`do $convert$
declare
  kept constant text[] := ${sql.raw(`array[${keptAsText.map((c) => `'${c}'`).join(', ')}]`)};
  fk record;
  tbl record;
  fk_tables text[] := '{}';
  fk_names text[] := '{}';
  fk_defs text[] := '{}';
begin
  for fk in
    select c.conrelid::regclass::text as tbl, c.conname as name, pg_get_constraintdef(c.oid) as def
    from pg_constraint c join pg_namespace n on n.oid = c.connamespace
    where c.contype = 'f' and c.conparentid = 0 and n.nspname = current_schema()
    order by c.conrelid::regclass::text, c.conname
  loop
    fk_tables := fk_tables || fk.tbl;
    fk_names := fk_names || fk.name::text;
    fk_defs := fk_defs || fk.def;
  end loop;
  for i in 1 .. coalesce(array_length(fk_tables, 1), 0) loop
    execute format('alter table %s drop constraint %I', fk_tables[i], fk_names[i]);
  end loop;
  for tbl in
    select c.oid::regclass::text as name,
      string_agg(format(
        'alter column %1$I type uuid using case when %1$I = %2$L then %3$L::uuid'
        ' when %1$I::uuid::text = %1$I then %1$I::uuid'
        ' else (%4$L || %1$I)::uuid end',
        a.attname, '', '00000000-0000-0000-0000-000000000000', 'not in the form of a UUID: '),
        ', ' order by a.attnum) as changes
    from pg_class c
      join pg_namespace n on n.oid = c.relnamespace
      join pg_attribute a on a.attrelid = c.oid
    where n.nspname = current_schema() and c.relkind in ('r', 'p') and not c.relispartition
      and c.relname not like 'kysely\\_%'
      and a.attnum > 0 and not a.attisdropped and a.atttypid = 'text'::regtype
      and (a.attname = 'id' or a.attname like '%\\_id')
      and not (a.attname = any(kept) or c.relname || '.' || a.attname = any(kept))
    group by c.oid
    order by 1
  loop
    begin
      execute format('alter table %s %s', tbl.name, tbl.changes);
    exception when invalid_text_representation then
      raise exception using errcode = 'invalid_text_representation',
        message = format('%s holds an id that is no UUID: %s', tbl.name, sqlerrm);
    end;
  end loop;
  for i in 1 .. coalesce(array_length(fk_tables, 1), 0) loop
    execute format('alter table %s add constraint %I %s', fk_tables[i], fk_names[i], fk_defs[i]);
  end loop;
exception when invalid_text_representation then
  insert into store_settings (name, value, updated_at)
  values ('ids_kept_as_text', sqlerrm, to_char(now() at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
  on conflict (name) do update set value = excluded.value, updated_at = excluded.updated_at;
end
$convert$`.execute(db);
}
