import type { Kysely } from 'kysely';

/**
 * A version's content file may be uploaded (PDF or HTML) instead of linked: the bytes are kept
 * here, base64 text (a type both stores read alike), with the name, type, size and SHA-256 the
 * back-office shows. `template_versions.content_file` names the type of a version's uploaded
 * file, so the API's `file_url` can point at it without reading this table.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('content_files')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('version_id', 'text', (c) => c.primaryKey())
    .addColumn('media_type', 'text', (c) => c.notNull())
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('content_base64', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.alterTable('template_versions').addColumn('content_file', 'text').execute();
}
