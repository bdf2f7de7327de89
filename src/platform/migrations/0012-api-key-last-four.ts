import type { Kysely } from 'kysely';

/**
 * The last four characters of each new API key, so that people tell keys apart by both ends
 * (`csk_1a2b3c4d5e6f…wxyz`) without the store holding more of the secret than that. Keys made
 * before have none: only their prefix is shown.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('last_four', 'text').execute();
}
