import type { Kysely } from 'kysely';

/**
 * Channel blocks: a customer may block a contact channel (email, sms, …) per product.
 * - `channel_changes`: append-only, one row per change a customer's channel went through. The
 *   customer is a subject (src/subjects), as in their decisions: their id, address and user agent
 *   are sealed under its key in `personal`, so erasing the customer leaves nothing personal
 *   behind. `blocked` is 1 or 0; the product is kept by id and by code (the code is what the
 *   change's log leaf names, and a product's code never changes).
 * - `channel_states`: the latest change of each (customer, product, channel): what a listing
 *   reads, and what a change is compared with. A channel without a row was never changed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('channel_changes')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('product_code', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('blocked', 'integer', (c) => c.notNull())
    .addColumn('api_key_id', 'text', (c) => c.notNull())
    .addColumn('personal', 'text', (c) => c.notNull())
    .addColumn('evidence_salt', 'text', (c) => c.notNull())
    .addColumn('changed_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('channel_changes_pk', ['tenant_id', 'id'])
    .execute();
  await db.schema
    .createIndex('channel_changes_subject_idx')
    .on('channel_changes')
    .columns(['tenant_id', 'subject_id', 'changed_at'])
    .execute();

  await db.schema
    .createTable('channel_states')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('blocked', 'integer', (c) => c.notNull())
    .addColumn('change_id', 'text', (c) => c.notNull())
    .addColumn('since', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('channel_states_pk', [
      'tenant_id',
      'subject_id',
      'product_id',
      'channel',
    ])
    .execute();
}
