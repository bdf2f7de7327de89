import type { Kysely } from 'kysely';

/**
 * What one back-office page leaves for the next page of the same session to show once (a new
 * API key, a draft kept through signing in again). Sealed, short-lived, deleted when read.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('backoffice_flashes')
    .addColumn('session_id_hash', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('sealed', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('backoffice_flashes_pk', ['session_id_hash', 'name'])
    .execute();
  await db.schema
    .createIndex('backoffice_flashes_expires_idx')
    .on('backoffice_flashes')
    .column('expires_at')
    .execute();
}
