import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * The controls after a decision (docs/controls.md):
 * - `partner_block_changes`: append-only, one row per change of a partner block, keyed by the
 *   customer's decision and the partner's code (a code the decision's release lists). The
 *   customer is a subject, as in their decisions: their id, address and user agent are sealed
 *   in `personal`. Who made it is an API key (`api_key_id`) or a back-office user (`user_id`),
 *   never both; a retry's `Idempotency-Key` is kept with it.
 * - `partner_block_states`: the latest change of each (decision, partner): what a listing reads
 *   and a change is compared with. A partner without a row was never blocked.
 * - `channel_changes` gains the same: `user_id` for a back-office user (so `api_key_id` may be
 *   null) and `idempotency_key`.
 * - `tenant_channels`: the tenant's own channel codes, beside the five every tenant has.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('partner_block_changes')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'text', (c) => c.notNull())
    .addColumn('decision_id', 'text', (c) => c.notNull())
    .addColumn('partner_code', 'text', (c) => c.notNull())
    .addColumn('blocked', 'integer', (c) => c.notNull())
    .addColumn('api_key_id', 'text')
    .addColumn('user_id', 'text')
    .addColumn('idempotency_key', 'text')
    .addColumn('personal', 'text', (c) => c.notNull())
    .addColumn('evidence_salt', 'text', (c) => c.notNull())
    .addColumn('changed_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('partner_block_changes_pk', ['tenant_id', 'id'])
    .execute();
  await db.schema
    .createIndex('partner_block_changes_subject_idx')
    .on('partner_block_changes')
    .columns(['tenant_id', 'subject_id', 'changed_at'])
    .execute();
  // As-of answers: a decision's partner's latest change at or before an instant.
  await db.schema
    .createIndex('partner_block_changes_decision_idx')
    .on('partner_block_changes')
    .columns(['tenant_id', 'decision_id', 'partner_code', 'changed_at'])
    .execute();

  await db.schema
    .createTable('partner_block_states')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('decision_id', 'text', (c) => c.notNull())
    .addColumn('partner_code', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'text', (c) => c.notNull())
    .addColumn('blocked', 'integer', (c) => c.notNull())
    .addColumn('change_id', 'text', (c) => c.notNull())
    .addColumn('since', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('partner_block_states_pk', [
      'tenant_id',
      'decision_id',
      'partner_code',
    ])
    .execute();
  await db.schema
    .createIndex('partner_block_states_subject_idx')
    .on('partner_block_states')
    .columns(['tenant_id', 'subject_id'])
    .execute();

  await db.schema.alterTable('channel_changes').addColumn('user_id', 'text').execute();
  await db.schema.alterTable('channel_changes').addColumn('idempotency_key', 'text').execute();
  await allowNullApiKey(db);
  // As-of answers: a customer's channel's latest change at or before an instant.
  await db.schema
    .createIndex('channel_changes_channel_idx')
    .on('channel_changes')
    .columns(['tenant_id', 'subject_id', 'product_id', 'channel', 'changed_at'])
    .execute();

  await db.schema
    .createTable('tenant_channels')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('tenant_channels_pk', ['tenant_id', 'code'])
    .execute();
}

/**
 * A change made in the back-office has no API key. PostgreSQL drops the constraint in place;
 * SQLite cannot, so the table is copied into one without it (it holds only channel changes,
 * new with 0022).
 */
async function allowNullApiKey(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`ALTER TABLE channel_changes ALTER COLUMN api_key_id DROP NOT NULL`.execute(db);
    return;
  }
  await db.schema
    .createTable('channel_changes_next')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('product_code', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('blocked', 'integer', (c) => c.notNull())
    .addColumn('api_key_id', 'text')
    .addColumn('personal', 'text', (c) => c.notNull())
    .addColumn('evidence_salt', 'text', (c) => c.notNull())
    .addColumn('changed_at', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text')
    .addColumn('idempotency_key', 'text')
    .addPrimaryKeyConstraint('channel_changes_pk', ['tenant_id', 'id'])
    .execute();
  await sql`INSERT INTO channel_changes_next SELECT tenant_id, id, subject_id, product_id,
    product_code, channel, blocked, api_key_id, personal, evidence_salt, changed_at, user_id,
    idempotency_key FROM channel_changes`.execute(db);
  await db.schema.dropTable('channel_changes').execute();
  await sql`ALTER TABLE channel_changes_next RENAME TO channel_changes`.execute(db);
  await db.schema
    .createIndex('channel_changes_subject_idx')
    .on('channel_changes')
    .columns(['tenant_id', 'subject_id', 'changed_at'])
    .execute();
}
