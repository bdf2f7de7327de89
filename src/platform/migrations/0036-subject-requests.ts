import type { Kysely } from 'kysely';

/**
 * Data-subject requests (PDPA sections 30-36; docs/requests.md): `subject_requests` holds each
 * request as it stands (its kind, status, due date, assignee), `request_steps` every step it
 * went through, each a record in the tenant's log (`consent-log/request/v1`), and
 * `request_notes` the staff's notes on it. The customer's id, and any text of theirs, is sealed
 * under their own key, so an erasure leaves the steps as proof without whose they were. Adds
 * tables only: the release before runs on.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('subject_requests')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('via', 'text', (c) => c.notNull())
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addColumn('due_on', 'text', (c) => c.notNull())
    .addColumn('extended', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('assignee_id', 'text')
    .addColumn('ground', 'text')
    .addColumn('reason', 'text')
    .addColumn('personal', 'text', (c) => c.notNull())
    .addColumn('details', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('closed_at', 'text')
    .addPrimaryKeyConstraint('subject_requests_pk', ['tenant_id', 'id'])
    .execute();
  // The queue: a tenant's open requests by due date; a customer's requests.
  await db.schema
    .createIndex('subject_requests_due')
    .on('subject_requests')
    .columns(['tenant_id', 'closed_at', 'due_on'])
    .execute();
  await db.schema
    .createIndex('subject_requests_subject')
    .on('subject_requests')
    .columns(['tenant_id', 'subject_id'])
    .execute();
  await db.schema
    .createTable('request_steps')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('step', 'text', (c) => c.notNull())
    .addColumn('due_on', 'text', (c) => c.notNull())
    .addColumn('ground', 'text')
    .addColumn('reason', 'text')
    .addColumn('api_key_id', 'text')
    .addColumn('user_id', 'text')
    .addColumn('personal', 'text', (c) => c.notNull())
    .addColumn('evidence_salt', 'text', (c) => c.notNull())
    .addColumn('made_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('request_steps_pk', ['tenant_id', 'id'])
    .execute();
  await db.schema
    .createIndex('request_steps_request')
    .on('request_steps')
    .columns(['tenant_id', 'request_id', 'made_at'])
    .execute();
  await db.schema
    .createIndex('request_steps_subject')
    .on('request_steps')
    .columns(['tenant_id', 'subject_id'])
    .execute();
  await db.schema
    .createTable('request_notes')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('written_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('request_notes_pk', ['tenant_id', 'id'])
    .execute();
  await db.schema
    .createIndex('request_notes_request')
    .on('request_notes')
    .columns(['tenant_id', 'request_id', 'written_at'])
    .execute();
}
