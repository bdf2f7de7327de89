import type { Kysely } from 'kysely';

/**
 * The A/B variant a website visitor saw when they chose (docs/cookies.md, "A/B tests"):
 * `cookie_decisions.variant`, null for a configuration without variants, as every earlier
 * choice's is. Adds a nullable column only: the release before runs on.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('cookie_decisions').addColumn('variant', 'text').execute();
}
