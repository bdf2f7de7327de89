import type { Kysely } from 'kysely';

/**
 * The first schema. Portable SQL only (text, integer), so PostgreSQL runs the same migration;
 * every key starts with `tenant_id` so the data can later be distributed by tenant.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('tenants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('alias', 'text', (c) => c.notNull().unique())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('disabled_at', 'text')
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull().unique())
    .addColumn('key_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('revoked_at', 'text')
    .addPrimaryKeyConstraint('api_keys_pk', ['tenant_id', 'id'])
    .execute();

  await db.schema
    .createTable('templates')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('templates_pk', ['tenant_id', 'id'])
    .addUniqueConstraint('templates_code_uq', ['tenant_id', 'code'])
    .execute();

  await db.schema
    .createTable('template_versions')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('template_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('version', 'integer')
    .addColumn('tag', 'text', (c) => c.notNull())
    .addColumn('content_html', 'text', (c) => c.notNull())
    .addColumn('content_sha256', 'text', (c) => c.notNull())
    .addColumn('file_url', 'text')
    .addColumn('allow_reconsent', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('published_at', 'text')
    .addColumn('published_by', 'text')
    .addPrimaryKeyConstraint('template_versions_pk', ['tenant_id', 'id'])
    .addUniqueConstraint('template_versions_number_uq', ['tenant_id', 'template_id', 'version'])
    .addUniqueConstraint('template_versions_tag_uq', ['tenant_id', 'template_id', 'tag'])
    .addForeignKeyConstraint(
      'template_versions_template_fk',
      ['tenant_id', 'template_id'],
      'templates',
      ['tenant_id', 'id'],
    )
    .execute();
  // The public content file is addressed by version id alone.
  await db.schema
    .createIndex('template_versions_id_uq')
    .on('template_versions')
    .column('id')
    .unique()
    .execute();

  await db.schema
    .createTable('decisions')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('template_id', 'text', (c) => c.notNull())
    .addColumn('consent_version_id', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('decision', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('decided_at', 'text', (c) => c.notNull())
    .addColumn('api_key_id', 'text', (c) => c.notNull())
    .addColumn('ip', 'text', (c) => c.notNull())
    .addColumn('user_agent', 'text')
    .addColumn('content_sha256', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text')
    .addPrimaryKeyConstraint('decisions_pk', ['tenant_id', 'id'])
    .addUniqueConstraint('decisions_history_uq', ['tenant_id', 'customer_id', 'template_id', 'seq'])
    .execute();
  await db.schema
    .createIndex('decisions_decided_at_idx')
    .on('decisions')
    .columns(['tenant_id', 'decided_at'])
    .execute();

  await db.schema
    .createTable('customer_template_states')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('template_id', 'text', (c) => c.notNull())
    .addColumn('decision_count', 'integer', (c) => c.notNull())
    .addColumn('last_decision_id', 'text', (c) => c.notNull())
    .addColumn('last_decision', 'text', (c) => c.notNull())
    .addColumn('last_consent_version_id', 'text', (c) => c.notNull())
    .addColumn('last_decided_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('customer_template_states_pk', [
      'tenant_id',
      'customer_id',
      'template_id',
    ])
    .execute();

  await db.schema
    .createTable('customer_version_states')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('consent_version_id', 'text', (c) => c.notNull())
    .addColumn('last_decision_id', 'text', (c) => c.notNull())
    .addColumn('last_decision', 'text', (c) => c.notNull())
    .addColumn('last_decided_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('customer_version_states_pk', [
      'tenant_id',
      'customer_id',
      'consent_version_id',
    ])
    .execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer', (c) => c.notNull())
    .addColumn('response_body', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['tenant_id', 'key'])
    .execute();
  await db.schema
    .createIndex('idempotency_keys_created_at_idx')
    .on('idempotency_keys')
    .column('created_at')
    .execute();
}
