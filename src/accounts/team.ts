import { type Actor, recordAudit } from '../audit-trail/index.js';
import type { Executor, Trx } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { nowIso } from '../platform/time.js';
import {
  getTenantSettings,
  hashPassword,
  setTenantSettings,
  type TenantSettings,
} from '../tenants/index.js';
import { issueLink, type LinkHolder, readLink, retireLinks, useLink } from './links.js';
import { removePasskeysOf } from './passkeys.js';
import {
  findOperatorRowById,
  findUserForSignIn,
  findUserRowById,
  linkIssuedSince,
  updateOperator,
} from './repository.js';
import { changeRole, createRole, deleteRole, type Role, type RoleInput } from './roles.js';
import { revokeSessionsOf } from './sessions.js';
import { removeSecondFactor } from './two-factor.js';
import {
  addUser,
  getTeamMember,
  removeUser,
  renameUser,
  setUserDisabled,
  setUserPasswordHash,
  setUserRoles,
  type TeamMember,
} from './users.js';

/**
 * The acts of a tenant's admins on their team, each with its audit entry (filed under the
 * tenant, naming who acted): inviting, changing roles, disabling, removing, password links,
 * custom roles and the tenant's settings. Who acts comes in as an `Actor`.
 */

/** Invites a person: an `invited` user, and the one-time link that lets them set a password. */
export async function inviteUser(
  trx: Trx,
  actor: Actor,
  tenantId: string,
  fields: { email: string; name: string; roles: readonly string[] },
): Promise<{ user: TeamMember; token: string }> {
  const user = await addUser(trx, tenantId, fields);
  const token = await issueLink(
    trx,
    { purpose: 'invitation', kind: 'user', accountId: user.id },
    actor.actor,
  );
  await recordAudit(trx, {
    ...actor,
    tenantId,
    action: 'user.invited',
    target: user.email,
    details: { user_id: user.id, name: user.name, roles: user.roles },
  });
  return { user, token };
}

/**
 * A new link for a user: a fresh invitation while they have not taken the first, otherwise a
 * password reset (an admin's, for someone who forgot theirs). Earlier links stop working.
 */
export async function issuePasswordLink(
  trx: Trx,
  actor: Actor,
  tenantId: string,
  userId: string,
): Promise<{ user: TeamMember; token: string }> {
  const user = await getTeamMember(trx, tenantId, userId);
  if (user.status === 'disabled') {
    throw new AppError('conflict', { message: 'Enable this user before sending them a link.' });
  }
  const purpose = user.status === 'invited' ? 'invitation' : 'password_reset';
  const token = await issueLink(trx, { purpose, kind: 'user', accountId: user.id }, actor.actor);
  await recordAudit(trx, {
    ...actor,
    tenantId,
    action: purpose === 'invitation' ? 'user.invitation_renewed' : 'user.password_reset_issued',
    target: user.email,
    details: { user_id: user.id },
  });
  return { user, token };
}

export async function changeUser(
  trx: Trx,
  actor: Actor,
  tenantId: string,
  userId: string,
  fields: { name: string; roles: readonly string[] },
): Promise<TeamMember> {
  const { before, after } = await setUserRoles(trx, tenantId, userId, fields.roles);
  const renamed =
    before.name === fields.name ? after : await renameUser(trx, tenantId, userId, fields.name);
  const changes: Record<string, unknown> = {};
  if (before.name !== fields.name) changes.name = { from: before.name, to: fields.name };
  if (before.roles.join(' ') !== after.roles.join(' ')) {
    changes.roles = { from: before.roles, to: after.roles };
  }
  if (Object.keys(changes).length > 0) {
    await recordAudit(trx, {
      ...actor,
      tenantId,
      action: 'user.changed',
      target: before.email,
      details: { user_id: userId, ...changes },
    });
  }
  return { ...renamed, roles: after.roles };
}

/** Disables a user and ends their sessions at once; their API keys stay (keys are the tenant's). */
export async function disableUser(
  trx: Trx,
  actor: Actor,
  tenantId: string,
  userId: string,
): Promise<TeamMember> {
  const user = await setUserDisabled(trx, tenantId, userId, true);
  const sessions = await revokeSessionsOf(trx, { kind: 'user', id: userId });
  await retireLinks(trx, 'user', userId);
  await recordAudit(trx, {
    ...actor,
    tenantId,
    action: 'user.disabled',
    target: user.email,
    details: { user_id: userId, sessions_ended: sessions },
  });
  return user;
}

export async function enableUser(
  trx: Trx,
  actor: Actor,
  tenantId: string,
  userId: string,
): Promise<TeamMember> {
  const user = await setUserDisabled(trx, tenantId, userId, false);
  await recordAudit(trx, {
    ...actor,
    tenantId,
    action: 'user.enabled',
    target: user.email,
    details: { user_id: userId },
  });
  return user;
}

/** Removes a user for good, ending their sessions; the audit log keeps naming them. */
export async function removeUserAs(
  trx: Trx,
  actor: Actor,
  tenantId: string,
  userId: string,
): Promise<TeamMember> {
  const sessions = await revokeSessionsOf(trx, { kind: 'user', id: userId });
  const user = await removeUser(trx, tenantId, userId);
  await recordAudit(trx, {
    ...actor,
    tenantId,
    action: 'user.removed',
    target: user.email,
    details: { user_id: userId, name: user.name, roles: user.roles, sessions_ended: sessions },
  });
  return user;
}

/**
 * Sets the password of whoever holds a one-time link (invitation or reset), which it uses up:
 * an invited user becomes active. Their other sessions end. Answers who it was, for signing in.
 */
export async function setPasswordFromLink(
  trx: Trx,
  token: string,
  password: string,
  passwordHashCost: number,
  client: { ip: string; userAgent: string | null },
): Promise<{ holder: LinkHolder; email: string; tenantId: string | null } | undefined> {
  const holder = await useLink(trx, token);
  if (!holder) return undefined;
  if (holder.kind === 'operator')
    return setOperatorPasswordFromLink(trx, holder, password, passwordHashCost, client);
  const user = await findUserRowById(trx, holder.accountId);
  if (!user || user.status === 'disabled') return undefined;
  await setUserPasswordHash(
    trx,
    user.id,
    await hashPassword(password, passwordHashCost),
    holder.purpose === 'invitation',
  );
  await revokeSessionsOf(trx, { kind: 'user', id: user.id });
  await recordAudit(trx, {
    tenantId: user.tenant_id,
    actorKind: 'tenant',
    actor: user.email,
    actorName: user.name,
    ...client,
    action: holder.purpose === 'invitation' ? 'user.invitation_taken' : 'user.password_reset',
    target: user.email,
    details: { user_id: user.id },
  });
  return { holder, email: user.email, tenantId: user.tenant_id };
}

/** A role's entry in the audit log: what was done to it, with its permissions then. */
async function auditRole(
  trx: Trx,
  actor: Actor,
  tenantId: string,
  action: 'role.created' | 'role.changed' | 'role.deleted',
  role: Role,
): Promise<Role> {
  await recordAudit(trx, {
    ...actor,
    tenantId,
    action,
    target: role.name,
    details: { role_id: role.id, permissions: role.permissions },
  });
  return role;
}

export async function createRoleAs(
  trx: Trx,
  actor: Actor,
  tenantId: string,
  input: RoleInput,
): Promise<Role> {
  return auditRole(trx, actor, tenantId, 'role.created', await createRole(trx, tenantId, input));
}

export async function changeRoleAs(
  trx: Trx,
  actor: Actor,
  tenantId: string,
  roleId: string,
  input: RoleInput,
): Promise<Role> {
  const role = await changeRole(trx, tenantId, roleId, input);
  return auditRole(trx, actor, tenantId, 'role.changed', role);
}

export async function deleteRoleAs(
  trx: Trx,
  actor: Actor,
  tenantId: string,
  roleId: string,
): Promise<Role> {
  return auditRole(trx, actor, tenantId, 'role.deleted', await deleteRole(trx, tenantId, roleId));
}

/**
 * Changes the tenant's settings; each change is its own audit entry, so that turning four eyes
 * off, say, is found by its action name.
 */
export async function changeSettings(
  trx: Trx,
  actor: Actor,
  tenantId: string,
  next: TenantSettings,
): Promise<TenantSettings> {
  const before = await getTenantSettings(trx, tenantId);
  await setTenantSettings(trx, tenantId, next);
  const entries: Array<[string, unknown, unknown]> = [];
  if (before.timeZone !== next.timeZone) {
    entries.push(['settings.time_zone_changed', before.timeZone, next.timeZone]);
  }
  if (before.fourEyes !== next.fourEyes) {
    entries.push([
      next.fourEyes ? 'settings.four_eyes_on' : 'settings.four_eyes_off',
      before.fourEyes,
      next.fourEyes,
    ]);
  }
  if (before.distinctApprover !== next.distinctApprover) {
    entries.push([
      next.distinctApprover ? 'settings.distinct_approver_on' : 'settings.distinct_approver_off',
      before.distinctApprover,
      next.distinctApprover,
    ]);
  }
  if (before.twoFactorRequired !== next.twoFactorRequired) {
    entries.push([
      next.twoFactorRequired ? 'settings.two_factor_required' : 'settings.two_factor_optional',
      before.twoFactorRequired,
      next.twoFactorRequired,
    ]);
  }
  if (before.cookieAddress !== next.cookieAddress) {
    entries.push(['settings.cookie_address_changed', before.cookieAddress, next.cookieAddress]);
  }
  for (const [action, from, to] of entries) {
    await recordAudit(trx, { ...actor, tenantId, action, details: { from, to } });
  }
  return next;
}

/** Who a usable one-time link is for (its purpose and the e-mail), or undefined. */
export async function describeLink(
  db: Executor,
  token: string,
): Promise<{ purpose: LinkHolder['purpose']; email: string } | undefined> {
  const holder = await readLink(db, token);
  if (!holder) return undefined;
  if (holder.kind === 'operator') {
    const operator = await findOperatorRowById(db, holder.accountId);
    if (!operator || operator.status === 'disabled') return undefined;
    return { purpose: holder.purpose, email: operator.email };
  }
  const user = await findUserRowById(db, holder.accountId);
  if (!user || user.status === 'disabled') return undefined;
  return { purpose: holder.purpose, email: user.email };
}

/**
 * Turns a user's second factor off, for someone who lost their phone and their recovery codes:
 * they sign in with their password and set it up again (at once, when the tenant requires it).
 * Their sessions end. An admin of the tenant does it, or the operator for a locked-out admin.
 */
export async function resetUserSecondFactor(
  trx: Trx,
  actor: Actor,
  tenantId: string,
  userId: string,
): Promise<TeamMember> {
  const user = await getTeamMember(trx, tenantId, userId);
  const wasOn = await removeSecondFactor(trx, { kind: 'user', id: userId });
  const passkeys = await removePasskeysOf(trx, { kind: 'user', id: userId });
  if (!wasOn && passkeys === 0) {
    throw new AppError('conflict', { message: 'This user has no second factor to reset.' });
  }
  const sessions = await revokeSessionsOf(trx, { kind: 'user', id: userId });
  await recordAudit(trx, {
    ...actor,
    tenantId,
    action: 'user.two_factor_reset',
    target: user.email,
    // An entry as it always was when there were no passkeys to remove.
    details: {
      user_id: userId,
      sessions_ended: sessions,
      ...(passkeys > 0 ? { passkeys_removed: passkeys } : {}),
    },
  });
  return { ...user, twoFactor: false, passkeys: 0 };
}

/** An operator's side of `setPasswordFromLink`: the invited operator becomes active. */
async function setOperatorPasswordFromLink(
  trx: Trx,
  holder: LinkHolder,
  password: string,
  passwordHashCost: number,
  client: { ip: string; userAgent: string | null },
): Promise<{ holder: LinkHolder; email: string; tenantId: null } | undefined> {
  const operator = await findOperatorRowById(trx, holder.accountId);
  if (!operator || operator.status === 'disabled') return undefined;
  await updateOperator(trx, operator.id, {
    password_hash: await hashPassword(password, passwordHashCost),
    ...(holder.purpose === 'invitation' ? { status: 'active' as const } : {}),
    updated_at: nowIso(),
  });
  await revokeSessionsOf(trx, { kind: 'operator', id: operator.id });
  await recordAudit(trx, {
    tenantId: null,
    actorKind: 'operator',
    actor: operator.email,
    actorName: operator.name || null,
    ...client,
    action:
      holder.purpose === 'invitation' ? 'operator.invitation_taken' : 'operator.password_reset',
    target: operator.email,
  });
  return { holder, email: operator.email, tenantId: null };
}

/** A reset asked for again within this time is not mailed again (no mail bombing). */
const resetPauseMs = 5 * 60_000;

/**
 * A forgotten password, asked for on the sign-in page: a reset link for the active user with
 * that e-mail, unless one was issued in the last five minutes. Answers nothing to the page
 * (which says the same whatever the e-mail), only to the mailer.
 */
export async function requestPasswordReset(
  trx: Trx,
  email: string,
  client: { ip: string; userAgent: string | null },
): Promise<{ user: { email: string; name: string; tenantId: string }; token: string } | undefined> {
  const row = await findUserForSignIn(trx, email.trim().toLowerCase());
  if (row?.status !== 'active' || row.tenant_disabled_at !== null) return undefined;
  const since = new Date(Date.now() - resetPauseMs).toISOString();
  if (await linkIssuedSince(trx, 'user', row.id, since)) return undefined;
  const token = await issueLink(
    trx,
    { purpose: 'password_reset', kind: 'user', accountId: row.id },
    'self',
  );
  await recordAudit(trx, {
    tenantId: row.tenant_id,
    actorKind: 'anonymous',
    actor: row.email,
    ...client,
    action: 'user.password_reset_requested',
    target: row.email,
    details: { user_id: row.id },
  });
  return { user: { email: row.email, name: row.name, tenantId: row.tenant_id }, token };
}
