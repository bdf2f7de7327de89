import { type Kysely, sql } from 'kysely';

/**
 * Who wrote a draft. Each change of a draft release's text is a row of `version_edits`: its
 * creation (one row per locale it starts with), each save of a locale's text with the text's
 * SHA-256 before and after and the text itself (so a reviewer can see what changed since their
 * last review), a locale added or removed. Four eyes reads the authors from it; the timeline
 * shows each row. Drafts made before it have no rows: their timeline says "Draft created"
 * without a name, as before.
 *
 * A tenant may also require the reviewer who passed a version and its approver to be different
 * people (`distinct_approver`, off: tenants keep the rule they had).
 *
 * A rejected version's tag may be used again by a later draft: the unique constraint on
 * (tenant, template, tag, locale) becomes a unique index over the versions not rejected. SQLite
 * drops a table constraint no other way than by rebuilding the table, as 0015 did; the same
 * statements run on both stores.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('version_edits')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('release_id', 'text', (c) => c.notNull())
    .addColumn('locale', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('actor_name', 'text')
    .addColumn('sha256_before', 'text')
    .addColumn('sha256_after', 'text')
    .addColumn('content_html', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('version_edits_release_idx')
    .on('version_edits')
    .columns(['tenant_id', 'release_id', 'created_at'])
    .execute();

  await db.schema
    .alterTable('tenants')
    .addColumn('distinct_approver', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('template_versions_next')
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
    .addPrimaryKeyConstraint('template_versions_next_pk', ['tenant_id', 'id'])
    .addUniqueConstraint('template_versions_next_number_locale_uq', [
      'tenant_id',
      'template_id',
      'version',
      'locale',
    ])
    .addForeignKeyConstraint(
      'template_versions_next_template_fk',
      ['tenant_id', 'template_id'],
      'templates',
      ['tenant_id', 'id'],
    )
    .execute();
  await sql`
    insert into template_versions_next (
      tenant_id, id, template_id, release_id, locale, status, version, tag, content_html,
      content_sha256, file_url, content_file, allow_reconsent, created_at, updated_at,
      published_at, published_by
    )
    select
      tenant_id, id, template_id, release_id, locale, status, version, tag, content_html,
      content_sha256, file_url, content_file, allow_reconsent, created_at, updated_at,
      published_at, published_by
    from template_versions
  `.execute(db);
  await db.schema.dropTable('template_versions').execute();
  await db.schema.alterTable('template_versions_next').renameTo('template_versions').execute();
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
  await db.schema
    .createIndex('template_versions_tag_locale_uq')
    .on('template_versions')
    .columns(['tenant_id', 'template_id', 'tag', 'locale'])
    .unique()
    .where(sql.ref('status'), '<>', 'rejected')
    .execute();
}
