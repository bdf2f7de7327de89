import { type Kysely, SqliteAdapter, sql } from 'kysely';

/**
 * On SQLite, what 0064 and 0071 did on PostgreSQL: a customer's states
 * (`customer_version_states`, `customer_template_states`) no longer name their tenant, neither in
 * a column nor in their key, which leads with the subject's id instead. Kept by their key (0050),
 * their rows are their key: 37 bytes less a state. A subject's id is a UUID the service makes and
 * never shares between tenants, and every read of states reaches them through the tenant's
 * subject, template or version (`StateTenant`, src/platform/id-type.ts), as PostgreSQL's have
 * since 0071.
 *
 * 0.19.0 is the first release that reads SQLite's states in either form; the releases before it
 * write the column, so the migration names 0.19.0 as the oldest release (`oldestRelease`: on both
 * stores, as every migration's does; on PostgreSQL it changes nothing else).
 *
 * SQLite cannot drop a column of a key: each table is made again from its own definition
 * without the column, its rows copied in the new key's order, the old one dropped and the new
 * one renamed, as 0072 does. Run again, it finds no column to drop and does nothing.
 */
export const oldestRelease = '0.19.0';

/** The tables it makes again, each with its new key; the tests take it back by the same. */
export const tables = [
  { name: 'customer_version_states', key: ['subject_id', 'consent_version_id'] },
  { name: 'customer_template_states', key: ['subject_id', 'template_id'] },
] as const;

/** The column's clause in 0.19.0's definitions, and their key's start. */
export const tenantColumn = '"tenant_id" text not null, ';
export const tenantKey = 'primary key ("tenant_id", ';

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  for (const { name, key } of tables) {
    const { rows } = await sql<{ sql: string }>`select sql from sqlite_master
      where type = 'table' and name = ${name}`.execute(db);
    const definition = rows[0]?.sql;
    if (definition === undefined) throw new Error(`table ${name} not found`);
    if (!definition.includes('"tenant_id"')) continue;
    const copy = `${name}_by_subject`;
    const made = definition
      .replace(/^create table "?[a-z_]+"?/i, `create table "${copy}"`)
      .replace(tenantColumn, '')
      .replace(tenantKey, 'primary key (');
    if (made.includes('tenant_id')) throw new Error(`cannot read the definition of ${name}`);
    await sql.raw(made).execute(db);
    const kept = await sql<{ name: string }>`select name from pragma_table_info(${copy})`.execute(
      db,
    );
    const columns = kept.rows.map((column) => `"${column.name}"`).join(', ');
    // In the new key's order, so that each page is filled before the next is begun.
    const order = key.map((column) => `"${column}"`).join(', ');
    await sql
      .raw(`insert into "${copy}" (${columns}) select ${columns} from "${name}" order by ${order}`)
      .execute(db);
    await sql.raw(`drop table "${name}"`).execute(db);
    await sql.raw(`alter table "${copy}" rename to "${name}"`).execute(db);
  }
}
