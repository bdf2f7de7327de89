import type { Kysely } from 'kysely';

/**
 * Provisioning of a tenant's users over SCIM 2.0 (docs/team.md, "Provisioning with SCIM"):
 * `scim_tokens`, the bearer tokens a tenant's identity provider sends (only a SHA-256 of each,
 * and a short prefix to recognise it), and `scim_users`, what a provisioned user carries of the
 * provider's own (its `externalId`, the parts of the name, the e-mails as sent), one row per
 * user, gone with the user. Adds two tables only: the release before runs on.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('scim_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema
    .createIndex('scim_tokens_tenant')
    .on('scim_tokens')
    .columns(['tenant_id', 'created_at'])
    .execute();
  await db.schema
    .createTable('scim_users')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('external_id', 'text')
    .addColumn('given_name', 'text')
    .addColumn('family_name', 'text')
    .addColumn('display_name', 'text')
    .addColumn('emails', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('scim_users_external_id')
    .on('scim_users')
    .columns(['tenant_id', 'external_id'])
    .execute();
}
