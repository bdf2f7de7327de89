import type { Kysely } from 'kysely';

/**
 * A template can be archived: the API then answers `404 1004` for its `latest` and `pending`,
 * while every decision on it, its versions and its place in the log stay.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('templates').addColumn('archived_at', 'text').execute();
}
