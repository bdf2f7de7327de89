import type { Kysely } from 'kysely';

/**
 * Where a website visitor was when they chose (docs/cookies.md, "Rules by region"):
 * `cookie_decisions.region`, a country (`TH`) or a subdivision of one (`US-CA`), null when the
 * service did not know, as every earlier choice is. Adds a nullable column only: the release
 * before runs on.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('cookie_decisions').addColumn('region', 'text').execute();
}
