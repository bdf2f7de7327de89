import type { Kysely } from 'kysely';

/**
 * Who may decide for whom on a template (PDPA section 20; docs/pdpa.md):
 * `templates.representation`, a JSON object from a basis (`under-10`, `10-19`, `adult`,
 * `court-order`) to who must act, null for a template without a rule, as every template is until
 * one is set. Adds a nullable column only: the release before runs on.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('templates').addColumn('representation', 'text').execute();
}
