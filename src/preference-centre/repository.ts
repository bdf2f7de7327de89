import type { Executor, Trx } from '../platform/db.js';
import type { NewPreferenceCode, PreferenceCentreRow, PreferenceCodeRow } from './table.js';

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

/** How many codes were asked for this look-up since `since`, whatever became of them. */
export async function countCodesSince(
  db: Executor,
  tenantId: string,
  lookup: string,
  since: string,
): Promise<number> {
  const row = await db
    .selectFrom('preference_codes')
    .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
    .where('tenant_id', '=', tenantId)
    .where('lookup', '=', lookup)
    .where('created_at', '>', since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertCode(db: Executor, row: NewPreferenceCode): Promise<void> {
  await db.insertInto('preference_codes').values(row).execute();
}

export function findCode(
  db: Executor,
  tenantId: string,
  id: string,
): Promise<PreferenceCodeRow | undefined> {
  return db
    .selectFrom('preference_codes')
    .selectAll()
    .where('id', '=', id)
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
}

/** Counts a wrong code against its row; the new count, undefined when the row is gone. */
export async function addCodeTry(db: Executor, id: string): Promise<number | undefined> {
  await db
    .updateTable('preference_codes')
    .set((eb) => ({ tries: eb('tries', '+', 1) }))
    .where('id', '=', id)
    .execute();
  const row = await db
    .selectFrom('preference_codes')
    .select('tries')
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.tries;
}

/**
 * Marks a code used, only while it is still usable: false when another request used it first,
 * or it died or expired in between (the conditions are the statement's own, so two requests
 * cannot both succeed).
 */
export async function useCode(
  db: Executor,
  id: string,
  now: string,
  maxTries: number,
): Promise<boolean> {
  const result = await db
    .updateTable('preference_codes')
    .set({ used_at: now })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .where('tries', '<', maxTries)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Forgets the codes made before `before`: past their expiry and out of the hourly count. */
export async function deleteCodesBefore(db: Executor, before: string): Promise<number> {
  const result = await db
    .deleteFrom('preference_codes')
    .where('created_at', '<', before)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** A customer's sign-in codes (kept by their look-up), dropped with their erasure. */
export async function deleteSubjectCodes(trx: Trx, tenantId: string, lookup: string) {
  await trx
    .deleteFrom('preference_codes')
    .where('tenant_id', '=', tenantId)
    .where('lookup', '=', lookup)
    .execute();
}
