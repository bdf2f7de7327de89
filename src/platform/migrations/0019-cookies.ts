import type { Kysely } from 'kysely';

/**
 * Cookie consent for websites.
 * - `cookie_systems`: a tenant's website or web app, found by its public scope (`data-scope`),
 *   with the origins allowed to load its banner and record choices.
 * - `cookie_configurations`: a system's banners over time; each goes draft -> review ->
 *   approval as a template's release does, and is published or not as a separate step, one at
 *   a time per system (`cookie_systems.published_configuration_id`). `content` is the JSON of its
 *   categories, texts, layout and lifetime, frozen once it leaves draft.
 * - `cookie_configuration_steps`: who created, changed, submitted, reviewed, approved, rejected,
 *   published a configuration: its timeline and the four-eyes rule's memory.
 * - `cookie_decisions`: append-only, one row per visitor's choice. The visitor is a subject of
 *   their own (src/subjects): the visitor id, address and user agent are sealed under its key,
 *   so erasing the visitor leaves nothing personal behind. `event_id` makes a retry count once.
 * - `tenants.cookie_address`: how a choice keeps the visitor's address (`full`, `truncated`,
 *   `hashed`); truncated by default, since a banner's record needs no more.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('cookie_systems')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('origins', 'text', (c) => c.notNull())
    .addColumn('published_configuration_id', 'text')
    .addColumn('configurations_made', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('cookie_systems_pk', ['tenant_id', 'id'])
    .addUniqueConstraint('cookie_systems_name_uq', ['tenant_id', 'name'])
    .execute();

  await db.schema
    .createTable('cookie_configurations')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('system_id', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('effective_date', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('content_sha256', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('published_at', 'text')
    .addPrimaryKeyConstraint('cookie_configurations_pk', ['tenant_id', 'id'])
    .addUniqueConstraint('cookie_configurations_version_uq', ['tenant_id', 'system_id', 'version'])
    .addForeignKeyConstraint(
      'cookie_configurations_system_fk',
      ['tenant_id', 'system_id'],
      'cookie_systems',
      ['tenant_id', 'id'],
    )
    .execute();

  await db.schema
    .createTable('cookie_configuration_steps')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('configuration_id', 'text', (c) => c.notNull())
    .addColumn('step', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text')
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('note', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('cookie_configuration_steps_configuration_idx')
    .on('cookie_configuration_steps')
    .columns(['tenant_id', 'configuration_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('cookie_decisions')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('system_id', 'text', (c) => c.notNull())
    .addColumn('configuration_id', 'text', (c) => c.notNull())
    .addColumn('configuration_version', 'integer', (c) => c.notNull())
    .addColumn('content_sha256', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('categories', 'text', (c) => c.notNull())
    .addColumn('locale', 'text', (c) => c.notNull())
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('personal', 'text', (c) => c.notNull())
    .addColumn('evidence_salt', 'text', (c) => c.notNull())
    .addColumn('decided_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('cookie_decisions_pk', ['tenant_id', 'id'])
    .addUniqueConstraint('cookie_decisions_event_uq', ['tenant_id', 'system_id', 'event_id'])
    .execute();
  await db.schema
    .createIndex('cookie_decisions_system_idx')
    .on('cookie_decisions')
    .columns(['tenant_id', 'system_id', 'decided_at'])
    .execute();
  await db.schema
    .createIndex('cookie_decisions_subject_idx')
    .on('cookie_decisions')
    .columns(['tenant_id', 'subject_id'])
    .execute();

  await db.schema
    .alterTable('tenants')
    .addColumn('cookie_address', 'text', (c) => c.notNull().defaultTo('truncated'))
    .execute();
}
