import type { Executor } from '../platform/db.js';
import type { ScimUserRow } from './table.js';

export function findScimUserRow(
  db: Executor,
  tenantId: string,
  userId: string,
): Promise<ScimUserRow | undefined> {
  return db
    .selectFrom('scim_users')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

export function listScimUserRows(db: Executor, tenantId: string): Promise<ScimUserRow[]> {
  return db.selectFrom('scim_users').selectAll().where('tenant_id', '=', tenantId).execute();
}

/** Writes the user's row, whole, in place of any before. */
export async function saveScimUserRow(db: Executor, row: ScimUserRow): Promise<void> {
  const { user_id: _user, ...values } = row;
  await db
    .insertInto('scim_users')
    .values(row)
    .onConflict((c) => c.column('user_id').doUpdateSet(values))
    .execute();
}
