/**
 * What a tenant's identity provider does to its team through provisioning (SCIM, `src/scim/`),
 * beside the acts the back-office shares with it (`changeUser`, `disableUser`, `enableUser`,
 * `removeUserAs`): making a user who signs in with single sign-on, and changing a user's e-mail.
 * Each writes its audit entry, naming who acted (`Actor`), in the caller's transaction.
 */
import { type Actor, recordAudit } from '../audit-trail/index.js';
import type { Executor, Trx } from '../platform/db.js';
import { nowIso } from '../platform/time.js';
import { emailTaken, updateUser } from './repository.js';
import {
  addUser,
  getTeamMember,
  refuseTakenEmail,
  setUserDisabled,
  type TeamMember,
} from './users.js';

/** Whether any account of the service (a user of any tenant, or an operator) has the e-mail. */
export function emailInUse(db: Executor, email: string): Promise<boolean> {
  return emailTaken(db, email.trim().toLowerCase());
}

/**
 * Adds a user with no password, as single sign-on's first sign-in does: active (they sign in
 * through their identity provider), or disabled when the provider says so. `particulars` join
 * the `user.provisioned` entry's details (where it came from, the provider's id of the person).
 */
export async function provisionUser(
  trx: Trx,
  actor: Actor,
  tenantId: string,
  fields: { email: string; name: string; roles: readonly string[]; active: boolean },
  particulars: Record<string, unknown> = {},
): Promise<TeamMember> {
  const made = await addUser(trx, tenantId, {
    email: fields.email,
    name: fields.name,
    roles: fields.roles,
    active: true,
  });
  const user = fields.active ? made : await setUserDisabled(trx, tenantId, made.id, true);
  await recordAudit(trx, {
    ...actor,
    tenantId,
    action: 'user.provisioned',
    target: user.email,
    details: {
      user_id: user.id,
      name: user.name,
      roles: user.roles,
      status: user.status,
      ...particulars,
    },
  });
  return user;
}

/**
 * Changes the e-mail a user signs in with (one e-mail, one account, across the service: a taken
 * one is refused, `409`). Their sessions and second factor stay: the person is the same.
 */
export async function changeUserEmail(
  trx: Trx,
  actor: Actor,
  tenantId: string,
  userId: string,
  email: string,
): Promise<TeamMember> {
  const user = await getTeamMember(trx, tenantId, userId);
  const next = email.trim().toLowerCase();
  if (next === user.email) return user;
  await refuseTakenEmail(trx, next);
  await updateUser(trx, userId, { email: next, updated_at: nowIso() });
  await recordAudit(trx, {
    ...actor,
    tenantId,
    action: 'user.email_changed',
    target: next,
    details: { user_id: userId, from: user.email, to: next },
  });
  return { ...user, email: next };
}
