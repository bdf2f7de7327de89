import type { Kysely } from 'kysely';

/**
 * Passkeys of the back-office's people (docs/team.md, "Passkeys"): `passkeys`, one row per
 * WebAuthn credential (its id and public key as the authenticator made them, its signature
 * counter, the name its owner gave it), and `role_sign_in_rules`, what signing in a tenant's role
 * requires (a second factor of either kind, or a passkey). Adds two tables only: the release
 * before runs on.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('passkeys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_kind', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('credential_id', 'text', (c) => c.notNull().unique())
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('sign_count', 'bigint', (c) => c.notNull())
    .addColumn('transports', 'text', (c) => c.notNull())
    .addColumn('device_type', 'text', (c) => c.notNull())
    .addColumn('backed_up', 'integer', (c) => c.notNull())
    .addColumn('aaguid', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .execute();
  await db.schema
    .createIndex('passkeys_account')
    .on('passkeys')
    .columns(['account_kind', 'account_id'])
    .execute();
  await db.schema
    .createTable('role_sign_in_rules')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('role_id', 'text', (c) => c.notNull())
    .addColumn('requirement', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('pk_role_sign_in_rules', ['tenant_id', 'role_id'])
    .execute();
}
