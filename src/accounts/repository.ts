import type { Insertable } from 'kysely';
import type { Executor } from '../platform/db.js';
import type {
  AccountTokenRow,
  BackofficeFlashesTable,
  BackofficeSessionsTable,
  OperatorRow,
  RoleRow,
  SignInChallengesTable,
  SignInThrottleTable,
  UserRow,
  UsersTable,
} from './table.js';

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

// Sessions

export async function insertSession(
  db: Executor,
  row: Insertable<BackofficeSessionsTable>,
): Promise<void> {
  await db.insertInto('backoffice_sessions').values(row).execute();
}

/** A session with what decides whether it still holds: its tenant's state, its operator. */
export function findSessionWithAccount(db: Executor, idHash: string) {
  return db
    .selectFrom('backoffice_sessions as s')
    .leftJoin('users as u', 'u.id', 's.user_id')
    .leftJoin('tenants as t', 't.id', 'u.tenant_id')
    .leftJoin('operators as o', 'o.id', 's.operator_id')
    .select([
      's.user_id',
      's.operator_id',
      's.last_seen_at',
      's.expires_at',
      's.revoked_at',
      'u.email as user_email',
      'u.name as user_name',
      'u.status as user_status',
      'u.two_factor_since as user_two_factor',
      'u.tenant_id',
      't.alias',
      't.disabled_at',
      't.time_zone',
      't.two_factor_required',
      'o.id as operator_row',
      'o.email as operator_email',
      'o.name as operator_name',
      'o.status as operator_status',
      'o.two_factor_since as operator_two_factor',
    ])
    .where('s.id_hash', '=', idHash)
    .executeTakeFirst();
}

export async function touchSession(
  db: Executor,
  idHash: string,
  lastSeenAt: string,
): Promise<void> {
  await db
    .updateTable('backoffice_sessions')
    .set({ last_seen_at: lastSeenAt })
    .where('id_hash', '=', idHash)
    .execute();
}

export function findSessionOwner(db: Executor, idHash: string) {
  return db
    .selectFrom('backoffice_sessions')
    .select(['user_id', 'operator_id', 'revoked_at'])
    .where('id_hash', '=', idHash)
    .executeTakeFirst();
}

export async function revokeSessionRow(db: Executor, idHash: string, at: string): Promise<void> {
  await db
    .updateTable('backoffice_sessions')
    .set({ revoked_at: at })
    .where('id_hash', '=', idHash)
    .where('revoked_at', 'is', null)
    .execute();
}

/** Revokes the open sessions of a tenant, a user or an operator but one; how many were revoked. */
export async function revokeSessionRowsOf(
  db: Executor,
  owner: { column: 'tenant_id' | 'user_id' | 'operator_id'; id: string },
  at: string,
  exceptIdHash?: string,
): Promise<number> {
  let query = db
    .updateTable('backoffice_sessions')
    .set({ revoked_at: at })
    .where(owner.column, '=', owner.id)
    .where('revoked_at', 'is', null);
  if (exceptIdHash !== undefined) query = query.where('id_hash', '!=', exceptIdHash);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function deleteSessionsEndedBefore(db: Executor, cutoff: string): Promise<number> {
  const result = await db
    .deleteFrom('backoffice_sessions')
    .where('expires_at', '<', cutoff)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

// Sign-in throttle

export async function throttleBlocks(
  db: Executor,
  keys: readonly string[],
): Promise<Array<{ blocked_until: string | null }>> {
  return db
    .selectFrom('sign_in_throttle')
    .select('blocked_until')
    .where('key', 'in', keys)
    .execute();
}

export function findThrottle(db: Executor, key: string) {
  return db.selectFrom('sign_in_throttle').selectAll().where('key', '=', key).executeTakeFirst();
}

export async function saveThrottle(
  db: Executor,
  key: string,
  values: Omit<SignInThrottleTable, 'key'>,
  exists: boolean,
): Promise<void> {
  if (exists) {
    await db.updateTable('sign_in_throttle').set(values).where('key', '=', key).execute();
  } else {
    await db
      .insertInto('sign_in_throttle')
      .values({ key, ...values })
      .execute();
  }
}

export async function deleteThrottlesUntouchedSince(db: Executor, before: string): Promise<void> {
  await db.deleteFrom('sign_in_throttle').where('updated_at', '<', before).execute();
}

export async function deleteThrottle(db: Executor, key: string): Promise<void> {
  await db.deleteFrom('sign_in_throttle').where('key', '=', key).execute();
}

// Flashes

export async function deleteFlashesExpiredBefore(db: Executor, now: string): Promise<void> {
  await db.deleteFrom('backoffice_flashes').where('expires_at', '<', now).execute();
}

export async function upsertFlash(db: Executor, row: BackofficeFlashesTable): Promise<void> {
  await db
    .insertInto('backoffice_flashes')
    .values(row)
    .onConflict((oc) =>
      oc
        .columns(['session_id_hash', 'name'])
        .doUpdateSet({ sealed: row.sealed, expires_at: row.expires_at }),
    )
    .execute();
}

/** Deletes the flash and returns it, so that two pages cannot both show it. */
export function takeFlashRow(db: Executor, sessionIdHash: string, name: string) {
  return db
    .deleteFrom('backoffice_flashes')
    .where('session_id_hash', '=', sessionIdHash)
    .where('name', '=', name)
    .returning(['sealed', 'expires_at'])
    .executeTakeFirst();
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
  values: Partial<Pick<UserRow, 'name' | 'password_hash' | 'status' | 'last_sign_in_at'>> & {
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

// Second factor

type FactorOwner = { kind: 'user' | 'operator'; id: string };
const factorTable = (owner: FactorOwner) => (owner.kind === 'user' ? 'users' : 'operators');

export function findTwoFactor(db: Executor, owner: FactorOwner) {
  return db
    .selectFrom(factorTable(owner))
    .select(['totp_secret', 'totp_last_step', 'two_factor_since'])
    .where('id', '=', owner.id)
    .executeTakeFirst();
}

export async function updateTwoFactor(
  db: Executor,
  owner: FactorOwner,
  values: Partial<Pick<UserRow, 'totp_secret' | 'totp_last_step' | 'two_factor_since'>>,
): Promise<void> {
  await db.updateTable(factorTable(owner)).set(values).where('id', '=', owner.id).execute();
}

export async function deleteRecoveryCodes(db: Executor, owner: FactorOwner): Promise<void> {
  await db
    .deleteFrom('recovery_codes')
    .where('account_kind', '=', owner.kind)
    .where('account_id', '=', owner.id)
    .execute();
}

export async function insertRecoveryCodes(
  db: Executor,
  owner: FactorOwner,
  hashes: readonly string[],
): Promise<void> {
  await db
    .insertInto('recovery_codes')
    .values(
      hashes.map((code_hash) => ({
        account_kind: owner.kind,
        account_id: owner.id,
        code_hash,
        used_at: null,
      })),
    )
    .execute();
}

/** Marks the code used; true for the one call that did. */
export async function useRecoveryCode(
  db: Executor,
  owner: FactorOwner,
  codeHash: string,
  at: string,
): Promise<boolean> {
  const result = await db
    .updateTable('recovery_codes')
    .set({ used_at: at })
    .where('account_kind', '=', owner.kind)
    .where('account_id', '=', owner.id)
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function countRecoveryCodesLeft(db: Executor, owner: FactorOwner): Promise<number> {
  const { count } = await db
    .selectFrom('recovery_codes')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('account_kind', '=', owner.kind)
    .where('account_id', '=', owner.id)
    .where('used_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(count);
}

// Sign-in challenges

export async function insertChallenge(
  db: Executor,
  row: Insertable<SignInChallengesTable>,
): Promise<void> {
  await db.deleteFrom('sign_in_challenges').where('expires_at', '<', row.created_at).execute();
  await db.insertInto('sign_in_challenges').values(row).execute();
}

export function findChallengeRow(db: Executor, idHash: string) {
  return db
    .selectFrom('sign_in_challenges')
    .selectAll()
    .where('id_hash', '=', idHash)
    .executeTakeFirst();
}

/** Counts a wrong code against the challenge; answers its failures so far. */
export async function recordChallengeFailure(db: Executor, idHash: string): Promise<number> {
  await db
    .updateTable('sign_in_challenges')
    .set((eb) => ({ failures: eb('failures', '+', 1) }))
    .where('id_hash', '=', idHash)
    .execute();
  const row = await findChallengeRow(db, idHash);
  return row?.failures ?? Number.MAX_SAFE_INTEGER;
}

export async function deleteChallenge(db: Executor, idHash: string): Promise<boolean> {
  const result = await db
    .deleteFrom('sign_in_challenges')
    .where('id_hash', '=', idHash)
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
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
