import type { Kysely } from 'kysely';

/**
 * The preference centre: the page where a customer sees and changes their own consents, opened
 * by a link the tenant's backend asks for.
 * - `preference_centres`: a tenant's settings for it, one row at most (none: the defaults, no
 *   allowed origin). The name, logo and colours shown, and the origins a link may return to and
 *   the page may be framed by (a JSON array of `scheme://host[:port]`).
 * - `preference_link_uses`: every link exchanged for a session, by the link's id, so that a link
 *   opens once. A row may go once its link has expired (`expires_at`): the link is refused for
 *   its age by then.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('preference_centres')
    .addColumn('tenant_id', 'text', (c) => c.primaryKey())
    .addColumn('display_name', 'text')
    .addColumn('logo_url', 'text')
    .addColumn('accent_colour', 'text')
    .addColumn('header_colour', 'text')
    .addColumn('allowed_origins', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('preference_link_uses')
    .addColumn('link_id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('preference_link_uses_expiry_idx')
    .on('preference_link_uses')
    .column('expires_at')
    .execute();
}
