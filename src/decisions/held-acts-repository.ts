import type { Executor } from '../platform/db.js';
import type { HeldConsentActsTable } from './table.js';

/** Holds an act, replacing one held for the same customer, version and side. */
export async function upsertHeldAct(db: Executor, row: HeldConsentActsTable): Promise<void> {
  await db
    .insertInto('held_consent_acts')
    .values(row)
    .onConflict((oc) =>
      oc
        .columns(['tenant_id', 'lookup', 'consent_version_id', 'side'])
        .doUpdateSet({ act: row.act, held_at: row.held_at, expires_at: row.expires_at }),
    )
    .execute();
}

/** The acts held for a customer on these versions that have not expired by `now`. */
export function findHeldActs(
  db: Executor,
  tenantId: string,
  lookup: string,
  versionIds: readonly string[],
  now: string,
): Promise<HeldConsentActsTable[]> {
  if (versionIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('held_consent_acts')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('lookup', '=', lookup)
    .where('consent_version_id', 'in', versionIds)
    .where('expires_at', '>', now)
    .execute();
}

/** Drops the acts held for a customer on a version (both sides). */
export async function deleteHeldActs(
  db: Executor,
  tenantId: string,
  lookup: string,
  versionId?: string,
): Promise<void> {
  let query = db
    .deleteFrom('held_consent_acts')
    .where('tenant_id', '=', tenantId)
    .where('lookup', '=', lookup);
  if (versionId !== undefined) query = query.where('consent_version_id', '=', versionId);
  await query.execute();
}

/** Drops the tenant's acts that expired by `now`. */
export async function deleteExpiredHeldActs(db: Executor, now: string): Promise<void> {
  await db.deleteFrom('held_consent_acts').where('expires_at', '<=', now).execute();
}
