/** The queries of passkeys and of what signing in a role requires (`passkeys.ts`). */
import type { Insertable } from 'kysely';
import type { Executor } from '../platform/db.js';
import type { PasskeysTable, SignInRequirement } from './table.js';

type Owner = { kind: 'user' | 'operator'; id: string };

export async function insertPasskey(db: Executor, row: Insertable<PasskeysTable>): Promise<void> {
  await db.insertInto('passkeys').values(row).execute();
}

/** An account's passkeys, oldest first. */
export function findPasskeysOf(db: Executor, owner: Owner) {
  return db
    .selectFrom('passkeys')
    .selectAll()
    .where('account_kind', '=', owner.kind)
    .where('account_id', '=', owner.id)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function findPasskeyByCredential(db: Executor, credentialId: string) {
  return db
    .selectFrom('passkeys')
    .selectAll()
    .where('credential_id', '=', credentialId)
    .executeTakeFirst();
}

export async function countPasskeysOf(db: Executor, owner: Owner): Promise<number> {
  const row = await db
    .selectFrom('passkeys')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_kind', '=', owner.kind)
    .where('account_id', '=', owner.id)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Records a use: the authenticator's new counter, and when. */
export async function recordPasskeyUse(
  db: Executor,
  id: string,
  signCount: number,
  at: string,
): Promise<void> {
  await db
    .updateTable('passkeys')
    .set({ sign_count: signCount, last_used_at: at })
    .where('id', '=', id)
    .execute();
}

export async function renamePasskeyRow(
  db: Executor,
  owner: Owner,
  id: string,
  name: string,
): Promise<boolean> {
  const result = await db
    .updateTable('passkeys')
    .set({ name })
    .where('id', '=', id)
    .where('account_kind', '=', owner.kind)
    .where('account_id', '=', owner.id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function deletePasskeyRow(db: Executor, owner: Owner, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('passkeys')
    .where('id', '=', id)
    .where('account_kind', '=', owner.kind)
    .where('account_id', '=', owner.id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function deletePasskeysOf(db: Executor, owner: Owner): Promise<number> {
  const result = await db
    .deleteFrom('passkeys')
    .where('account_kind', '=', owner.kind)
    .where('account_id', '=', owner.id)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

// What signing in a role requires

export function findSignInRules(db: Executor, tenantId: string) {
  return db
    .selectFrom('role_sign_in_rules')
    .select(['role_id', 'requirement'])
    .where('tenant_id', '=', tenantId)
    .execute();
}

/** The rules of some of a tenant's roles (a user's). */
export function findSignInRulesOf(db: Executor, tenantId: string, roleIds: readonly string[]) {
  if (roleIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('role_sign_in_rules')
    .select(['role_id', 'requirement'])
    .where('tenant_id', '=', tenantId)
    .where('role_id', 'in', roleIds)
    .execute();
}

export async function setSignInRule(
  db: Executor,
  tenantId: string,
  roleId: string,
  requirement: SignInRequirement | null,
): Promise<void> {
  await db
    .deleteFrom('role_sign_in_rules')
    .where('tenant_id', '=', tenantId)
    .where('role_id', '=', roleId)
    .execute();
  if (requirement !== null) {
    await db
      .insertInto('role_sign_in_rules')
      .values({ tenant_id: tenantId, role_id: roleId, requirement })
      .execute();
  }
}

/** How many passkeys each of these users has (users without any are not in the answer). */
export function countPasskeysOfUsers(db: Executor, userIds: readonly string[]) {
  if (userIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('passkeys')
    .select(['account_id', (eb) => eb.fn.countAll<number | string>().as('n')])
    .where('account_kind', '=', 'user')
    .where('account_id', 'in', userIds)
    .groupBy('account_id')
    .execute();
}
