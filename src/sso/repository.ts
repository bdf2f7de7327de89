import type { Executor } from '../platform/db.js';
import type { TenantSsoTable } from './table.js';

export function findSsoRow(db: Executor, tenantId: string) {
  return db
    .selectFrom('tenant_sso')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
}

/** Writes the tenant's settings, whole, in place of any before. */
export async function saveSsoRow(db: Executor, row: TenantSsoTable): Promise<void> {
  const { tenant_id: _tenant, ...values } = row;
  await db
    .insertInto('tenant_sso')
    .values(row)
    .onConflict((c) => c.column('tenant_id').doUpdateSet(values))
    .execute();
}

export async function deleteSsoRow(db: Executor, tenantId: string): Promise<void> {
  await db.deleteFrom('tenant_sso').where('tenant_id', '=', tenantId).execute();
}
