import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * Makes a required text column nullable, for a release that stops writing it (0059, 0060).
 * PostgreSQL drops the constraint in its catalogue, at once: the rows keep their values.
 * SQLite cannot drop a constraint in place: the column is dropped, which writes every row of
 * the table again, and added back nullable and empty. Run again on a table it already changed,
 * it leaves it as it is. Frozen: the migrations that call it are history.
 */
export async function makeNullable(
  db: Kysely<unknown>,
  table: string,
  column: string,
): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`alter table ${sql.table(table)} alter column ${sql.ref(column)} drop not null`.execute(
      db,
    );
    return;
  }
  const { rows } = await sql<{ notnull: number }>`select "notnull" from
    pragma_table_info(${table}) where name = ${column}`.execute(db);
  if (rows[0]?.notnull !== 1) return;
  await sql`alter table ${sql.table(table)} drop column ${sql.ref(column)}`.execute(db);
  await sql`alter table ${sql.table(table)} add column ${sql.ref(column)} text`.execute(db);
}
