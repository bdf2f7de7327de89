import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * PostgreSQL: a customer's states (`customer_version_states`, `customer_template_states`) no
 * longer name their tenant in their rows: 16 bytes a row, in tables that hold a row for each
 * template and each version a customer decided on. No key holds the column since 0064 (a
 * subject's id is never shared between tenants), and every statement reaches a tenant's states
 * through its subjects, templates or versions. Dropping a column leaves its bytes in the rows
 * already written, so each table is then written again in its key's order (`cluster`), which
 * holds its lock while it runs (the cost a million decisions is in CHANGELOG.md).
 *
 * 0.18.0 runs on either form (`StateTenant`, src/platform/id-type.ts); 0.17.0 writes the column,
 * which the tables no longer have (`oldestRelease`). SQLite keeps it: its keys lead with it.
 */
export const oldestRelease = '0.18.0';

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  for (const table of ['customer_version_states', 'customer_template_states']) {
    const { rows } = await sql<{ n: number }>`select 1 as n from information_schema.columns
      where table_schema = current_schema() and table_name = ${table}
        and column_name = 'tenant_id'`.execute(db);
    // Run again on a store it changed, it leaves it.
    if (rows.length === 0) continue;
    await sql`alter table ${sql.table(table)} drop column tenant_id`.execute(db);
    await sql`cluster ${sql.table(table)} using ${sql.id(`${table}_pk`)}`.execute(db);
  }
}
