import type { Kysely } from 'kysely';

/**
 * The sensitive data a template covers (PDPA section 26; docs/pdpa.md): `templates.data_categories`,
 * null for one that covers none, as every template is until it is set. A `given` on one that
 * covers some needs the explicit act's evidence. Adds a nullable column only: the release before
 * runs on.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('templates').addColumn('data_categories', 'text').execute();
}
