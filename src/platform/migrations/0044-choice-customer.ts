import { type Kysely, sql } from 'kysely';

/**
 * A website visitor's choice made while signed in to the tenant's site (docs/cookies.md,
 * "Signed-in visitors"): `cookie_decisions.customer_subject_id`, the customer's subject, and
 * `customer`, the subject commitment the choice's evidence commits to; both null for a choice
 * made by a visitor no one signed in, as every earlier choice's are. An index finds a customer's
 * choices, for the choices that follow them, their evidence pack and their history. Adds
 * nullable columns and an index only: the release before runs on.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('cookie_decisions').addColumn('customer_subject_id', 'text').execute();
  await db.schema.alterTable('cookie_decisions').addColumn('customer', 'text').execute();
  await db.schema
    .createIndex('cookie_decisions_customer')
    .on('cookie_decisions')
    .columns(['tenant_id', 'customer_subject_id', 'decided_at'])
    .where(sql.ref('customer_subject_id'), 'is not', null)
    .execute();
}
