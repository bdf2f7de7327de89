import type { Executor } from '../platform/db.js';
import type { TenantChannelsTable } from './table.js';

/** The tenant's own channels, by code. */
export function findTenantChannelRows(db: Executor, tenantId: string) {
  return db
    .selectFrom('tenant_channels')
    .select(['code', 'name', 'created_at'])
    .where('tenant_id', '=', tenantId)
    .orderBy('code')
    .execute();
}

/** One of the tenant's own channels, by code. */
export function findTenantChannelRow(db: Executor, tenantId: string, code: string) {
  return db
    .selectFrom('tenant_channels')
    .select(['code', 'name', 'created_at'])
    .where('tenant_id', '=', tenantId)
    .where('code', '=', code)
    .executeTakeFirst();
}

/** Adds a channel; false when the tenant already has one of that code. */
export async function insertTenantChannel(
  db: Executor,
  row: TenantChannelsTable,
): Promise<boolean> {
  const result = await db
    .insertInto('tenant_channels')
    .values(row)
    .onConflict((oc) => oc.columns(['tenant_id', 'code']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}
