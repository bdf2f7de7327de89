import { type Actor, recordAudit } from '../audit-trail/index.js';
import type { Executor, Trx } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { setTenantDisabled } from '../tenants/index.js';
import { closeChallenge, failChallenge } from './challenges.js';
import { findOperatorByEmail, setOperatorPasswordHash } from './operators.js';
import { addTenantWithInvitedAdmin } from './registration.js';
import {
  type Account,
  type BackofficeUser,
  revokeSession,
  revokeSessionsOf,
  type SessionSettings,
  startSession,
} from './sessions.js';
import type { SignInMethod } from './table.js';
import { recordFailure, type ThrottleKey } from './throttle.js';
import { recordSignInOf, setUserPasswordHash } from './users.js';

/**
 * The acts of a person on accounts, each with its audit entry: signing in and out, changing
 * one's password, and the operator's registering, disabling and enabling of tenants. Who acts
 * comes in as an `Actor`; the pages that call these live in `src/backoffice/`.
 */

/**
 * A failed sign-in: counted against the throttle's keys (`throttleKeys`), and recorded under
 * the e-mail as typed (and the tenant, when it names one).
 */
export async function recordFailedSignIn(
  trx: Trx,
  keys: readonly ThrottleKey[],
  actor: Actor,
): Promise<void> {
  await recordFailure(trx, keys);
  await recordAudit(trx, { ...actor, action: 'sign_in.failed' });
}

/**
 * A passkey that signed no one in: counted against the client's address (and the account's, when
 * the passkey is known), and audited with why when it names an account.
 */
export async function recordFailedPasskeySignIn(
  trx: Trx,
  keys: readonly ThrottleKey[],
  actor: Actor | null,
  reason: string,
): Promise<void> {
  await recordFailure(trx, keys);
  if (actor) {
    await recordAudit(trx, {
      ...actor,
      action: 'sign_in.failed',
      details: { method: 'passkey', reason },
    });
  }
}

/**
 * A wrong second-factor code: the challenge loses an attempt (and ends with the last one), and
 * the sign-in fails as with a wrong password. Answers the attempts left.
 */
export async function failSecondFactor(
  trx: Trx,
  challengeIdHash: string,
  keys: readonly ThrottleKey[],
  actor: Actor,
): Promise<number> {
  const left = await failChallenge(trx, challengeIdHash);
  await recordFailedSignIn(trx, keys, actor);
  if (left <= 0) await closeChallenge(trx, challengeIdHash);
  return left;
}

/** Opens a session for an account whose password was just checked; answers its cookie value. */
export async function signIn(
  trx: Trx,
  account: Account,
  who: { email: string; name: string },
  tenantId: string | null,
  client: { ip: string; userAgent: string | null },
  settings: SessionSettings,
  secondFactor?: 'totp' | 'recovery_code',
  method: SignInMethod = 'password',
): Promise<string> {
  const { email } = who;
  const token = await startSession(trx, account, tenantId, email, client, settings, method);
  if (account.kind === 'user') await recordSignInOf(trx, account.id);
  await recordAudit(trx, {
    tenantId,
    actorKind: account.kind === 'user' ? 'tenant' : 'operator',
    actor: email,
    actorName: who.name || null,
    action: 'sign_in',
    // A password's entry is as it always was; single sign-on and a passkey say so.
    ...(secondFactor ? { details: { second_factor: secondFactor } } : {}),
    ...(method !== 'password' ? { details: { method } } : {}),
    ip: client.ip,
    userAgent: client.userAgent,
  });
  return token;
}

export async function signOut(trx: Trx, user: BackofficeUser, actor: Actor): Promise<void> {
  await revokeSession(trx, user.sessionIdHash);
  await recordAudit(trx, { ...actor, action: 'sign_out' });
}

/**
 * Sets a new password (already checked against the current one and the rules, and hashed before
 * the transaction: the hash is slow on purpose) and ends every other session of the account:
 * whoever knew the old password is signed out.
 */
export async function changePassword(
  trx: Trx,
  user: BackofficeUser,
  passwordHash: string,
  actor: Actor,
): Promise<void> {
  if (user.kind === 'tenant') {
    await setUserPasswordHash(trx, user.userId, passwordHash, false);
    await revokeSessionsOf(trx, { kind: 'user', id: user.userId }, user.sessionIdHash);
  } else {
    await setOperatorPasswordHash(trx, user.operatorId, passwordHash, user.sessionIdHash);
  }
  await recordAudit(trx, { ...actor, action: 'account.password_changed' });
}

/** One sign-in form serves both kinds of account: an e-mail belongs to one of them. */
export async function refuseOperatorEmail(db: Executor, email: string): Promise<void> {
  if (email && (await findOperatorByEmail(db, email))) {
    throw new AppError('conflict', { message: "This is the operator's e-mail." });
  }
}

/**
 * The operator registers a tenant with its first admin invited (see `addTenantWithInvitedAdmin`):
 * the entry is filed under the tenant. Answers the tenant, its admin and the invitation's token.
 */
export async function registerTenant(
  trx: Trx,
  input: unknown,
  actor: Actor,
): Promise<Awaited<ReturnType<typeof addTenantWithInvitedAdmin>>> {
  const registered = await addTenantWithInvitedAdmin(trx, input, actor.actor);
  const { tenant, admin } = registered;
  await recordAudit(trx, {
    ...actor,
    tenantId: tenant.id,
    action: 'tenant.created',
    target: tenant.alias,
    details: { email: tenant.email, admin: { user_id: admin.id, name: admin.name, invited: true } },
  });
  return registered;
}

/** Disables a tenant and ends its users' sessions at once. */
export async function disableTenant(trx: Trx, tenantId: string, actor: Actor): Promise<void> {
  const tenant = await setTenantDisabled(trx, tenantId, true);
  const sessions = await revokeSessionsOf(trx, { kind: 'tenant', id: tenant.id });
  await recordAudit(trx, {
    ...actor,
    tenantId: tenant.id,
    action: 'tenant.disabled',
    target: tenant.alias,
    details: { sessions_ended: sessions },
  });
}

export async function enableTenant(trx: Trx, tenantId: string, actor: Actor): Promise<void> {
  const tenant = await setTenantDisabled(trx, tenantId, false);
  await recordAudit(trx, {
    ...actor,
    tenantId: tenant.id,
    action: 'tenant.enabled',
    target: tenant.alias,
  });
}
