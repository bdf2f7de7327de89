import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { sql } from 'kysely';
import { type Db, isPostgres } from '../../src/platform/db.js';
import { sqlitePath } from '../../src/platform/sqlite.js';

/**
 * Everything a store holds, as bytes, to search for what must not be there: for SQLite every
 * file of the database (the main file, its WAL and shared-memory index) byte for byte, free
 * pages included; for PostgreSQL every row of every table, as text.
 */
export async function storeBytes(db: Db, databaseUrl: string): Promise<Buffer> {
  if (isPostgres(db)) {
    const tables = await sql<{ name: string }>`
      select table_name as name from information_schema.tables
      where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db);
    const rows: string[] = [];
    for (const { name } of tables.rows) {
      const result = await sql<{ row: string }>`
        select t::text as row from ${sql.table(name)} t`.execute(db);
      rows.push(...result.rows.map((r) => r.row));
    }
    return Buffer.from(rows.join('\n'), 'utf8');
  }
  const file = sqlitePath(databaseUrl);
  const dir = dirname(file);
  return Buffer.concat(
    readdirSync(dir)
      .filter((name) => name.startsWith(basename(file)))
      .map((name) => readFileSync(join(dir, name))),
  );
}
