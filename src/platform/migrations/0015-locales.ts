import { type Kysely, sql } from 'kysely';

/**
 * Locales. A template has a default locale; a release (one version number and tag) has one row
 * of `template_versions` per locale, each its own `consent_version_id`, content and hash, tied
 * together by `release_id` (the id of the release's row in the template's default locale at the
 * time it was made, which carries its status and review). Templates and versions made before
 * locales are taken to be in English (`en`).
 *
 * The table is rebuilt because a number and a tag are now unique per locale, and SQLite changes
 * a table's constraints no other way; the same statements run on both stores.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('templates').addColumn('default_locale', 'text').execute();
  await sql`update templates set default_locale = 'en'`.execute(db);

  await db.schema
    .createTable('template_versions_by_locale')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('template_id', 'text', (c) => c.notNull())
    .addColumn('release_id', 'text', (c) => c.notNull())
    .addColumn('locale', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('version', 'integer')
    .addColumn('tag', 'text', (c) => c.notNull())
    .addColumn('content_html', 'text', (c) => c.notNull())
    .addColumn('content_sha256', 'text', (c) => c.notNull())
    .addColumn('file_url', 'text')
    .addColumn('content_file', 'text')
    .addColumn('allow_reconsent', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('published_at', 'text')
    .addColumn('published_by', 'text')
    .addPrimaryKeyConstraint('template_versions_by_locale_pk', ['tenant_id', 'id'])
    .addUniqueConstraint('template_versions_number_locale_uq', [
      'tenant_id',
      'template_id',
      'version',
      'locale',
    ])
    .addUniqueConstraint('template_versions_tag_locale_uq', [
      'tenant_id',
      'template_id',
      'tag',
      'locale',
    ])
    .addForeignKeyConstraint(
      'template_versions_by_locale_template_fk',
      ['tenant_id', 'template_id'],
      'templates',
      ['tenant_id', 'id'],
    )
    .execute();
  await sql`
    insert into template_versions_by_locale (
      tenant_id, id, template_id, release_id, locale, status, version, tag, content_html,
      content_sha256, file_url, content_file, allow_reconsent, created_at, updated_at,
      published_at, published_by
    )
    select
      tenant_id, id, template_id, id, 'en', status, version, tag, content_html,
      content_sha256, file_url, content_file, allow_reconsent, created_at, updated_at,
      published_at, published_by
    from template_versions
  `.execute(db);
  await db.schema.dropTable('template_versions').execute();
  await db.schema.alterTable('template_versions_by_locale').renameTo('template_versions').execute();
  // The public content file is addressed by version id alone.
  await db.schema
    .createIndex('template_versions_id_uq')
    .on('template_versions')
    .column('id')
    .unique()
    .execute();
  await db.schema
    .createIndex('template_versions_release_idx')
    .on('template_versions')
    .columns(['tenant_id', 'release_id'])
    .execute();
}
