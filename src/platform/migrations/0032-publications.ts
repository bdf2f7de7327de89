import type { Kysely } from 'kysely';

/**
 * Publications (docs/proof.md, "Publications"): each time a template's version or a cookie
 * system's configuration is made live, a row here, and the leaf it makes in the tenant's log.
 * Looked up by what was published and its version, as a decision's receipt finds the
 * publication of the text it was made on. Adds a table only: the release before runs on.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('publications')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('what', 'text', (c) => c.notNull())
    .addColumn('of_id', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('published_at', 'text', (c) => c.notNull())
    .addColumn('effective_at', 'text', (c) => c.notNull())
    .addColumn('texts', 'text', (c) => c.notNull())
    .addColumn('partners', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('publications_pk', ['tenant_id', 'id'])
    .execute();
  await db.schema
    .createIndex('publications_of')
    .on('publications')
    .columns(['tenant_id', 'of_id', 'version'])
    .execute();
}
