import type { Insertable } from 'kysely';
import type { Executor } from '../platform/db.js';
import type {
  BackofficeFlashesTable,
  BackofficeSessionsTable,
  OperatorRow,
  SignInThrottleTable,
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

/** The tenants service has no look-up of a tenant's hash by id yet. */
export async function tenantPasswordHash(db: Executor, id: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('tenants')
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
    .leftJoin('tenants as t', 't.id', 's.tenant_id')
    .leftJoin('operators as o', 'o.id', 's.operator_id')
    .select([
      's.tenant_id',
      's.operator_id',
      's.email',
      's.last_seen_at',
      's.expires_at',
      's.revoked_at',
      't.alias',
      't.disabled_at',
      'o.id as operator_row',
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
    .select(['tenant_id', 'operator_id', 'revoked_at'])
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

/** Revokes the open sessions of a tenant or an operator but one; how many were revoked. */
export async function revokeSessionRowsOf(
  db: Executor,
  owner: { column: 'tenant_id' | 'operator_id'; id: string },
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
