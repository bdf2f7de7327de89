import { type Kysely, SqliteAdapter, sql } from 'kysely';

/**
 * On SQLite, the tables that hold one row per customer (their subject, their state on each
 * template, each version and each channel) and the log's stored subtrees are kept in the order
 * of their key (`WITHOUT ROWID`). An ordinary SQLite table keeps its rows by a hidden row number
 * and its key in a second B-tree beside them, so each of these tables stored its ids twice; kept
 * by key, each row is stored once, and a look-up by the key (`pending`'s, a decision's update of
 * a state) is one B-tree descent instead of two. An index of such a table carries the key instead
 * of the row number: `subjects_lookup_uq` then holds the subject's id, so that `pending` finds it
 * in the index without reading the subject's row, as on PostgreSQL since 0049. The rows are small
 * (a twelfth of a page or less), as SQLite asks of a table kept by key. Same names, same columns,
 * same keys, same indexes: the release before runs on.
 *
 * Each table is made again from its own definition (what `sqlite_master` holds, every column a
 * later migration added included), its rows copied in key order, the old one dropped, the new one
 * renamed and its indexes made again, in the migrations' one transaction. PostgreSQL keeps every
 * table's rows apart from its indexes whatever it is told: nothing to do there.
 */
const tables = [
  'subjects',
  'customer_template_states',
  'customer_version_states',
  'channel_states',
  'tlog_nodes',
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  for (const table of tables) {
    const { rows } = await sql<{ type: string; sql: string }>`select type, sql from sqlite_master
      where tbl_name = ${table} and sql is not null`.execute(db);
    const definition = rows.find((row) => row.type === 'table')?.sql;
    if (definition === undefined) throw new Error(`table ${table} not found`);
    if (/\)\s*without\s+rowid\s*$/i.test(definition)) continue;
    const copy = `${table}_by_key`;
    const made = definition.replace(
      /^create table (if not exists )?"?[a-z_]+"?/i,
      `create table "${copy}"`,
    );
    if (made === definition) throw new Error(`cannot read the definition of ${table}`);
    await sql.raw(`${made} without rowid`).execute(db);
    // In key order, so that each page is filled before the next is begun.
    const key = await sql<{ name: string }>`select name from pragma_table_info(${table})
      where pk > 0 order by pk`.execute(db);
    const order = key.rows.map((column) => `"${column.name}"`).join(', ');
    await sql.raw(`insert into "${copy}" select * from "${table}" order by ${order}`).execute(db);
    await sql.raw(`drop table "${table}"`).execute(db);
    await sql.raw(`alter table "${copy}" rename to "${table}"`).execute(db);
    for (const index of rows.filter((row) => row.type === 'index')) {
      await sql.raw(index.sql).execute(db);
    }
  }
}
