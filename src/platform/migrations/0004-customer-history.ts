import type { Kysely } from 'kysely';

/**
 * A customer's decisions on every template in time order, for the pages of their history
 * (`GET /api/v1/customers/{customer_id}/consents`): each page is a seek on this key, whatever the
 * size of the tenant, where the older keys would read the whole tenant (by time) or the whole
 * customer (by template).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('decisions_customer_time_idx')
    .on('decisions')
    .columns(['tenant_id', 'customer_id', 'decided_at', 'id'])
    .execute();
}
