/**
 * The queries of signing in and staying signed in: sessions, the sign-in throttle, flashes
 * between pages, second factors and their challenges. The team (users, roles, operators, links)
 * is `repository.ts`'s.
 */
import { type Insertable, sql } from 'kysely';
import type { Executor } from '../platform/db.js';
import type {
  BackofficeFlashesTable,
  BackofficeSessionsTable,
  SignInChallengesTable,
  SignInThrottleTable,
  UserRow,
} from './table.js';

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
      's.sign_in_method',
      (eb) =>
        eb
          .exists(
            eb
              .selectFrom('passkeys as p')
              .select('p.id')
              // Both columns of `passkeys_account`, so the look-up is the index's.
              .whereRef(
                'p.account_kind',
                '=',
                eb
                  .case()
                  .when('s.user_id', 'is', null)
                  .then(sql.lit('operator'))
                  .else(sql.lit('user'))
                  .end(),
              )
              .whereRef('p.account_id', '=', eb.fn.coalesce('s.user_id', 's.operator_id')),
          )
          .as('has_passkey'),
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

/** The account's sessions that may still hold (not revoked, not past their end), newest first. */
export function findLiveSessionsOf(
  db: Executor,
  owner: { column: 'user_id' | 'operator_id'; id: string },
  now: string,
) {
  return db
    .selectFrom('backoffice_sessions')
    .select(['id_hash', 'ip', 'user_agent', 'created_at', 'last_seen_at', 'sign_in_method'])
    .where(owner.column, '=', owner.id)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('last_seen_at', 'desc')
    .execute();
}

/** Revokes one of the account's sessions; false when it has no such session still open. */
export async function revokeSessionRowOf(
  db: Executor,
  owner: { column: 'user_id' | 'operator_id'; id: string },
  idHash: string,
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable('backoffice_sessions')
    .set({ revoked_at: now })
    .where(owner.column, '=', owner.id)
    .where('id_hash', '=', idHash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function findSessionMethod(db: Executor, idHash: string) {
  return (
    await db
      .selectFrom('backoffice_sessions')
      .select('sign_in_method')
      .where('id_hash', '=', idHash)
      .executeTakeFirst()
  )?.sign_in_method;
}
