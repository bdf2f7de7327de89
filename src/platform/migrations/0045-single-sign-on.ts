import type { Kysely } from 'kysely';

/**
 * Single sign-on with OpenID Connect per tenant (docs/team.md, "Single sign-on"): `tenant_sso`,
 * one row per tenant that set it up (its identity provider, client, claims, the roles its groups
 * give, whether users are made on their first sign-in and whether every other sign-in is
 * refused), and `backoffice_sessions.sign_in_method`, how a session was started (`password` or
 * `sso`; null for a session started before). Adds a table and a nullable column only: the
 * release before runs on.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('tenant_sso')
    .addColumn('tenant_id', 'text', (c) => c.primaryKey())
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('client_secret_sealed', 'text', (c) => c.notNull())
    .addColumn('email_claim', 'text', (c) => c.notNull())
    .addColumn('groups_claim', 'text', (c) => c.notNull())
    .addColumn('group_roles', 'text', (c) => c.notNull())
    .addColumn('create_users', 'integer', (c) => c.notNull())
    .addColumn('required', 'integer', (c) => c.notNull())
    .addColumn('break_glass_user_id', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.alterTable('backoffice_sessions').addColumn('sign_in_method', 'text').execute();
}
