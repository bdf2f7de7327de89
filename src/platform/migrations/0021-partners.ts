import type { Kysely } from 'kysely';

/**
 * Partners: the third parties a consent text allows customer data to be shared with, a register
 * per tenant (code, name, purpose, country, policy link), and the partners each release lists
 * (`version_partners`, by the release's id and the partner's code, which is fixed once made).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('partners')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('country', 'text')
    .addColumn('policy_url', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('partners_tenant_code_unique', ['tenant_id', 'code'])
    .execute();
  await db.schema
    .createTable('version_partners')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('release_id', 'text', (c) => c.notNull())
    .addColumn('partner_code', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('version_partners_pk', ['tenant_id', 'release_id', 'partner_code'])
    .execute();
  // Deleting a partner asks whether any release lists it.
  await db.schema
    .createIndex('version_partners_partner_idx')
    .on('version_partners')
    .columns(['tenant_id', 'partner_code'])
    .execute();
}
