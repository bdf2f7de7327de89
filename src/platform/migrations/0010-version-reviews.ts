import type { Kysely } from 'kysely';

/**
 * Review and approval of versions. A version's `status` (free text since 0001) now also reads
 * `in_review`, `reviewed` and `rejected`. Each step of its way (submitted, sent back, passed,
 * approved, rejected) is a row here, kept for good with who took it, their name as it was then,
 * and the comment: the timeline a regulator or the four-eyes rule reads.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('version_reviews')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('version_id', 'text', (c) => c.notNull())
    .addColumn('step', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('actor_name', 'text')
    .addColumn('comment', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('version_reviews_version_idx')
    .on('version_reviews')
    .columns(['tenant_id', 'version_id', 'created_at'])
    .execute();
}
