import type { Kysely } from 'kysely';

/**
 * The reminders sent of a data-subject request's due date (docs/requests.md, "Reminders"): one
 * row per request and reminder, taken by the instance that sends it, so that each is sent once
 * however many instances run. Adds a table only: the release before runs on.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('request_reminders')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('reminder', 'text', (c) => c.notNull())
    .addColumn('sent_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('request_reminders_pk', ['tenant_id', 'request_id', 'reminder'])
    .execute();
}
