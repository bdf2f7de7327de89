import type { Insertable } from 'kysely';
import type { Executor } from '../platform/db.js';
import type { AccountTokenRow, OperatorRow, RoleRow, UserRow, UsersTable } from './table.js';

// Operators

export function findOperatorRowByEmail(
  db: Executor,
  email: string,
): Promise<OperatorRow | undefined> {
  return db
    .selectFrom('operators')
    .selectAll()
    .where('email', '=', email.toLowerCase())
    .executeTakeFirst();
}

export async function anyOperatorExists(db: Executor): Promise<boolean> {
  return (await db.selectFrom('operators').select('id').limit(1).executeTakeFirst()) !== undefined;
}

/** Inserts the operator unless the e-mail is already taken; true when this call inserted it. */
export async function insertOperatorRow(db: Executor, row: OperatorRow): Promise<boolean> {
  const result = await db
    .insertInto('operators')
    .values(row)
    .onConflict((oc) => oc.column('email').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export async function updateOperatorPasswordHash(
  db: Executor,
  id: string,
  passwordHash: string,
  updatedAt: string,
): Promise<void> {
  await db
    .updateTable('operators')
    .set({ password_hash: passwordHash, updated_at: updatedAt })
    .where('id', '=', id)
    .execute();
}

export async function operatorPasswordHash(db: Executor, id: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('operators')
    .select('password_hash')
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.password_hash;
}

// Users

/** A user with what signing in needs to know of their tenant. */
export function findUserForSignIn(db: Executor, email: string) {
  return db
    .selectFrom('users as u')
    .innerJoin('tenants as t', 't.id', 'u.tenant_id')
    .select([
      'u.id',
      'u.tenant_id',
      'u.email',
      'u.name',
      'u.password_hash',
      'u.status',
      't.disabled_at as tenant_disabled_at',
    ])
    .where('u.email', '=', email)
    .executeTakeFirst();
}

export function findUserRow(db: Executor, tenantId: string, id: string) {
  return db
    .selectFrom('users')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export function findUserRowById(db: Executor, id: string) {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Any account (user or operator) with this e-mail: e-mails are unique across the service. */
export async function emailTaken(db: Executor, email: string): Promise<boolean> {
  const user = await db
    .selectFrom('users')
    .select('id')
    .where('email', '=', email)
    .executeTakeFirst();
  if (user) return true;
  const operator = await db
    .selectFrom('operators')
    .select('id')
    .where('email', '=', email)
    .executeTakeFirst();
  return operator !== undefined;
}

export async function insertUser(db: Executor, row: Insertable<UsersTable>): Promise<void> {
  await db.insertInto('users').values(row).execute();
}

export async function updateUser(
  db: Executor,
  id: string,
  values: Partial<
    Pick<UserRow, 'email' | 'name' | 'password_hash' | 'status' | 'last_sign_in_at'>
  > & {
    updated_at?: string;
  },
): Promise<void> {
  await db.updateTable('users').set(values).where('id', '=', id).execute();
}

export async function deleteUserRow(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('user_roles').where('user_id', '=', id).execute();
  await db
    .deleteFrom('account_tokens')
    .where('account_kind', '=', 'user')
    .where('account_id', '=', id)
    .execute();
  await db.deleteFrom('users').where('id', '=', id).execute();
}

export function listUserRows(db: Executor, tenantId: string) {
  return db
    .selectFrom('users')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('name')
    .orderBy('email')
    .execute();
}

/** Each user's role ids, for the users of one tenant (or one user). */
export function findUserRoleRows(db: Executor, userIds: readonly string[]) {
  if (userIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('user_roles')
    .select(['user_id', 'role_id'])
    .where('user_id', 'in', userIds)
    .execute();
}

export async function replaceUserRoles(
  db: Executor,
  userId: string,
  roleIds: readonly string[],
): Promise<void> {
  await db.deleteFrom('user_roles').where('user_id', '=', userId).execute();
  if (roleIds.length > 0) {
    await db
      .insertInto('user_roles')
      .values(roleIds.map((role_id) => ({ user_id: userId, role_id })))
      .execute();
  }
}

/** How many active users of the tenant hold this role. */
export async function countActiveHolders(
  db: Executor,
  tenantId: string,
  roleId: string,
): Promise<number> {
  const { count } = await db
    .selectFrom('user_roles as r')
    .innerJoin('users as u', 'u.id', 'r.user_id')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('u.tenant_id', '=', tenantId)
    .where('u.status', '=', 'active')
    .where('r.role_id', '=', roleId)
    .executeTakeFirstOrThrow();
  return Number(count);
}

// Roles

export function listRoleRows(db: Executor, tenantId: string) {
  return db
    .selectFrom('roles')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('name')
    .execute();
}

export function findRoleRow(db: Executor, tenantId: string, id: string) {
  return db
    .selectFrom('roles')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export function findRoleRowByName(db: Executor, tenantId: string, name: string) {
  return db
    .selectFrom('roles')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('name', '=', name)
    .executeTakeFirst();
}

export async function insertRole(db: Executor, row: RoleRow): Promise<void> {
  await db.insertInto('roles').values(row).execute();
}

export async function updateRole(
  db: Executor,
  id: string,
  values: Pick<RoleRow, 'name' | 'description' | 'permissions' | 'updated_at'>,
): Promise<void> {
  await db.updateTable('roles').set(values).where('id', '=', id).execute();
}

export async function deleteRoleRow(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('user_roles').where('role_id', '=', id).execute();
  await db.deleteFrom('role_sign_in_rules').where('role_id', '=', id).execute();
  await db.deleteFrom('roles').where('id', '=', id).execute();
}

/** The permission lists of the tenant's own roles among these ids. */
export function findRolePermissions(db: Executor, tenantId: string, ids: readonly string[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('roles')
    .select(['id', 'permissions'])
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', ids)
    .execute();
}

// One-time links

export async function insertAccountToken(db: Executor, row: AccountTokenRow): Promise<void> {
  await db.insertInto('account_tokens').values(row).execute();
}

export function findAccountToken(db: Executor, tokenHash: string) {
  return db
    .selectFrom('account_tokens')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** Marks the token used; true for the one call that did (two tabs cannot both use it). */
export async function useAccountToken(
  db: Executor,
  tokenHash: string,
  at: string,
): Promise<boolean> {
  const result = await db
    .updateTable('account_tokens')
    .set({ used_at: at })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Ends the account's links not yet used (a new link replaces the old). */
export async function retireAccountTokens(
  db: Executor,
  kind: 'user' | 'operator',
  accountId: string,
  at: string,
): Promise<void> {
  await db
    .updateTable('account_tokens')
    .set({ used_at: at })
    .where('account_kind', '=', kind)
    .where('account_id', '=', accountId)
    .where('used_at', 'is', null)
    .execute();
}

// Operators as a team

export function listOperatorRows(db: Executor) {
  return db
    .selectFrom('operators')
    .select(['id', 'email', 'name', 'status', 'created_at', 'two_factor_since'])
    .orderBy('email')
    .execute();
}

export function findOperatorRowById(db: Executor, id: string) {
  return db.selectFrom('operators').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateOperator(
  db: Executor,
  id: string,
  values: Partial<Pick<OperatorRow, 'status' | 'password_hash' | 'name' | 'updated_at'>>,
): Promise<void> {
  await db.updateTable('operators').set(values).where('id', '=', id).execute();
}

export async function countActiveOperators(db: Executor): Promise<number> {
  const { count } = await db
    .selectFrom('operators')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('status', '=', 'active')
    .executeTakeFirstOrThrow();
  return Number(count);
}

/** Whether a link was issued for the account since then (a reset is not mailed twice in a row). */
export async function linkIssuedSince(
  db: Executor,
  kind: 'user' | 'operator',
  accountId: string,
  since: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('account_tokens')
    .select('token_hash')
    .where('account_kind', '=', kind)
    .where('account_id', '=', accountId)
    .where('created_at', '>=', since)
    .executeTakeFirst();
  return row !== undefined;
}
