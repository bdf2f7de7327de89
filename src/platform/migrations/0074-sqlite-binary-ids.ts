import { type Kysely, SqliteAdapter, sql } from 'kysely';

/**
 * On SQLite, every id held as its 16 bytes instead of its 36 characters of text
 * (`sqlite-ids.ts`): about 400 bytes a decision less, in its row, its keys, its customer's
 * states and its log entry. PostgreSQL's ids have been `uuid` since 0058; nothing changes there.
 *
 * 0.21.0 is the first release that reads a store in this form; the releases before it bind
 * ids as text, which would find nothing. So the migration names 0.21.0 as the oldest release
 * (`oldestRelease`: on both stores, as every migration's does; on PostgreSQL it changes nothing
 * else). Run again, it finds no id as text and does nothing but mark the store again.
 */
export const oldestRelease = '0.21.0';

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  await holdIdsAsBytes(db);
}

/**
 * Every UUID held as text in the store, in every table but SQLite's and the migrator's own and
 * every column not declared `blob`, written as its bytes; then the store marked so. One
 * statement a table, which rewrites each of its rows once. Run in the caller's transaction, with
 * foreign keys off (the migrator's): a key and the keys naming it change in the same
 * transaction, each to the same bytes. Run again, it finds no UUID as text and marks the store
 * again.
 */
async function holdIdsAsBytes(db: Kysely<unknown>): Promise<void> {
  const { rows: tables } = await sql<{ name: string }>`select name from sqlite_schema
    where type = 'table' and name not like 'sqlite!_%' escape '!'
      and name not like 'kysely!_%' escape '!'
    order by name`.execute(db);
  for (const { name } of tables) {
    const { rows: columns } = await sql<{ name: string; type: string }>`select name, type
      from pragma_table_info(${name})`.execute(db);
    const converted = columns
      .filter((column) => column.type.toLowerCase() !== 'blob')
      .map((column) => `"${column.name}"`);
    if (converted.length === 0) continue;
    const set = converted
      .map(
        (c) => `${c} = case when ${isUuidText(c)} then unhex(replace(${c}, '-', '')) else ${c} end`,
      )
      .join(', ');
    const where = converted.map(isUuidText).join(' or ');
    await sql.raw(`update "${name}" set ${set} where ${where}`).execute(db);
  }
  // What the connections read (`src/platform/sqlite-ids.ts`, `binaryIdsVersion`).
  await sql.raw('pragma user_version = 1').execute(db);
}

/** A value is a UUID as text in its canonical form (GLOB is case-sensitive). */
function isUuidText(column: string): string {
  const hex = (n: number) => '[0-9a-f]'.repeat(n);
  const pattern = [hex(8), hex(4), hex(4), hex(4), hex(12)].join('-');
  return `(typeof(${column}) = 'text' and length(${column}) = 36 and ${column} glob '${pattern}')`;
}
