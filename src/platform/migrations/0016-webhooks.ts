import { type Kysely, sql } from 'kysely';

/**
 * Webhooks: endpoints, the outbox of events (written in the transaction of what each tells of),
 * the per-tenant sequence that orders them, and every delivery attempt.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('disabled_reason', 'text')
    .addColumn('disabled_at', 'text')
    .addColumn('cursor', 'integer', (c) => c.notNull())
    .addColumn('failing_since', 'text')
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'text')
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_endpoints_tenant_ix')
    .on('webhook_endpoints')
    .columns(['tenant_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('webhook_events')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('record_id', 'text')
    .addColumn('subject_id', 'text')
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    .addColumn('position', 'integer')
    .addColumn('log_index', 'integer')
    .execute();
  await db.schema
    .createIndex('webhook_events_position_uq')
    .on('webhook_events')
    .columns(['tenant_id', 'position'])
    .unique()
    .execute();
  // The sequencer's work list: only the rows still without a position.
  await db.schema
    .createIndex('webhook_events_unsequenced_ix')
    .on('webhook_events')
    .columns(['tenant_id', 'occurred_at'])
    .where(sql.ref('position'), 'is', null)
    .execute();
  // Erasure events, few beside decisions: the dispatcher looks here for customer ids to drop.
  await db.schema
    .createIndex('webhook_events_erased_ix')
    .on('webhook_events')
    .columns(['tenant_id', 'position'])
    .where(sql.ref('type'), '=', sql.lit('customer.erased'))
    .execute();

  await db.schema
    .createTable('webhook_sequence')
    .addColumn('tenant_id', 'text', (c) => c.primaryKey())
    .addColumn('position', 'integer', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('endpoint_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('response_code', 'integer')
    .addColumn('error', 'text')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('attempted_at', 'text', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_endpoint_ix')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'attempted_at', 'id'])
    .execute();
}
