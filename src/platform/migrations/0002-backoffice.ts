import type { Kysely } from 'kysely';

/**
 * The back-office: the operator's account, sign-in sessions (kept in the store, so they work on
 * every instance and can be revoked), the failed sign-in counters, and the audit log. Portable SQL
 * only, like the first migration.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('operators')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  // Exactly one of tenant_id and operator_id is set. Only a SHA-256 of the cookie's value is kept.
  await db.schema
    .createTable('backoffice_sessions')
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.references('tenants.id'))
    .addColumn('operator_id', 'text', (c) => c.references('operators.id'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('ip', 'text', (c) => c.notNull())
    .addColumn('user_agent', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema
    .createIndex('backoffice_sessions_tenant_idx')
    .on('backoffice_sessions')
    .column('tenant_id')
    .execute();
  await db.schema
    .createIndex('backoffice_sessions_operator_idx')
    .on('backoffice_sessions')
    .column('operator_id')
    .execute();
  await db.schema
    .createIndex('backoffice_sessions_expires_idx')
    .on('backoffice_sessions')
    .column('expires_at')
    .execute();

  // One row per account (`account:<e-mail>`) and per client address (`address:<ip>`).
  await db.schema
    .createTable('sign_in_throttle')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('window_started_at', 'text', (c) => c.notNull())
    .addColumn('blocked_until', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('sign_in_throttle_updated_idx')
    .on('sign_in_throttle')
    .column('updated_at')
    .execute();

  // Append-only. tenant_id is null for the operator's acts that concern no one tenant.
  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text')
    .addColumn('actor_kind', 'text', (c) => c.notNull())
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target', 'text')
    .addColumn('details', 'text')
    .addColumn('ip', 'text', (c) => c.notNull())
    .addColumn('user_agent', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('audit_log_tenant_idx')
    .on('audit_log')
    .columns(['tenant_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('audit_log_created_idx')
    .on('audit_log')
    .columns(['created_at', 'id'])
    .execute();
}
