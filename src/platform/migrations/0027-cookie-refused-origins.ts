import type { Kysely } from 'kysely';

/**
 * `cookie_refused_origins`: how often a page on an origin a system does not list tried to record
 * a choice on it (refused `403 1003`), and when last, so that the owner learns of a site they
 * forgot to list. One row per system and origin, at most 50 origins a system; `origin` `''` is
 * the one row that counts every other (past the 50, or no http(s) origin at all).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('cookie_refused_origins')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('system_id', 'text', (c) => c.notNull())
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('refusals', 'integer', (c) => c.notNull())
    .addColumn('first_seen_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('cookie_refused_origins_pk', ['tenant_id', 'system_id', 'origin'])
    .execute();
}
