import type { Kysely } from 'kysely';

/**
 * `store_settings`: settings of the whole service kept with its store rather than in each
 * process's environment, one row a setting (`public_base_url`: the address clients reach, which
 * `serve` records and the command line prints its URLs on).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('store_settings')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}
