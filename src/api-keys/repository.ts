import type { Executor } from '../platform/db.js';

/** The tenant's active (not revoked) key of that name, if any. */
export function findActiveKeyNamed(
  db: Executor,
  tenantId: string,
  name: string,
): Promise<{ id: string } | undefined> {
  return db
    .selectFrom('api_keys')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('name', '=', name)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}
