import type { Executor } from '../platform/db.js';
import type { PreferenceCentreRow } from './table.js';

export function findPreferenceCentreRow(
  db: Executor,
  tenantId: string,
): Promise<PreferenceCentreRow | undefined> {
  return db
    .selectFrom('preference_centres')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
}

export async function savePreferenceCentreRow(
  db: Executor,
  row: PreferenceCentreRow,
): Promise<void> {
  const { tenant_id: _, ...changes } = row;
  await db
    .insertInto('preference_centres')
    .values(row)
    .onConflict((oc) => oc.column('tenant_id').doUpdateSet(changes))
    .execute();
}

/**
 * Marks a link used; false when it was used before (the key is the link's id, so two instances
 * opening the same link at once cannot both succeed).
 */
export async function useLink(
  db: Executor,
  use: { link_id: string; tenant_id: string; used_at: string; expires_at: string },
): Promise<boolean> {
  const result = await db
    .insertInto('preference_link_uses')
    .values(use)
    .onConflict((oc) => oc.column('link_id').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}

/** Forgets the uses of links that have expired: they are refused for their age by then. */
export async function deleteExpiredLinkUses(db: Executor, before: string): Promise<number> {
  const result = await db
    .deleteFrom('preference_link_uses')
    .where('expires_at', '<', before)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
