import { type Actor, recordAudit } from '../audit-trail/index.js';
import type { Executor, Trx } from '../platform/db.js';
import { getTenantSettings } from '../tenants/index.js';
import {
  countPasskeysOf,
  findSignInRules,
  findSignInRulesOf,
  setSignInRule,
} from './passkey-repository.js';
import { rolesOfUsers } from './roles.js';
import { findTwoFactor } from './sign-in-repository.js';
import type { SignInRequirement } from './table.js';

/**
 * What signing in requires of the holders of a role, set by an admin per role: a second factor of
 * either kind (an authenticator app's code, or a passkey), or a passkey. A person holding several
 * roles meets the strictest; the tenant's "two-factor sign-in of every user" is a second factor
 * for every role. Sessions started through the tenant's single sign-on follow the provider's own
 * rules instead.
 */

const strength: Record<SignInRequirement, number> = { second_factor: 1, passkey: 2 };

export function strictest(
  requirements: ReadonlyArray<SignInRequirement | null>,
): SignInRequirement | null {
  let found: SignInRequirement | null = null;
  for (const requirement of requirements) {
    if (requirement && (!found || strength[requirement] > strength[found])) found = requirement;
  }
  return found;
}

/** What the roles of a user (and the tenant's own setting) require of their sign-in. */
export async function signInRequirementOf(
  db: Executor,
  tenantId: string,
  roleIds: readonly string[],
  tenantRequiresTwoFactor: boolean,
): Promise<SignInRequirement | null> {
  const rules = await findSignInRulesOf(db, tenantId, roleIds);
  return strictest([
    tenantRequiresTwoFactor ? 'second_factor' : null,
    ...rules.map((rule) => rule.requirement),
  ]);
}

/** The tenant's rules, by role id (roles without one are not in it). */
export async function signInRules(
  db: Executor,
  tenantId: string,
): Promise<Map<string, SignInRequirement>> {
  return new Map((await findSignInRules(db, tenantId)).map((r) => [r.role_id, r.requirement]));
}

/** Sets the rules of the roles given; each change is its own audit entry. */
export async function changeSignInRules(
  trx: Trx,
  actor: Actor,
  tenantId: string,
  next: ReadonlyMap<string, SignInRequirement | null>,
): Promise<void> {
  const before = await signInRules(trx, tenantId);
  for (const [roleId, requirement] of next) {
    const was = before.get(roleId) ?? null;
    if (was === requirement) continue;
    await setSignInRule(trx, tenantId, roleId, requirement);
    await recordAudit(trx, {
      ...actor,
      tenantId,
      action: 'role.sign_in_rule_changed',
      target: roleId,
      details: { from: was, to: requirement },
    });
  }
}

/**
 * Whether a right password may go on to a session (with the app's code when the person has one)
 * for a person whose sign-in must meet `requirement`: not when a passkey is what meets it and they
 * have one (they sign in with it). Without one, they are let in to set one up, before anything
 * else (the back-office's access check).
 */
export function passwordMeets(
  requirement: SignInRequirement | null,
  has: { totp: boolean; passkey: boolean },
): boolean {
  if (!has.passkey) return true;
  if (requirement === 'passkey') return false;
  return !(requirement === 'second_factor' && !has.totp);
}

/** What a signed-in person still has to set up before anything else, if anything. */
export function missingFactor(
  requirement: SignInRequirement | null,
  has: { totp: boolean; passkey: boolean },
): SignInRequirement | null {
  if (requirement === 'passkey' && !has.passkey) return 'passkey';
  if (requirement === 'second_factor' && !has.totp && !has.passkey) return 'second_factor';
  return null;
}

/**
 * Whether a user whose password was right may go on with it (`passwordMeets`); when not, the
 * refusal is audited (`sign_in.refused`, `passkey_required`) and they sign in with their passkey.
 */
export async function passwordSignInAdmitted(
  db: Executor,
  tenantId: string,
  userId: string,
  actor: Actor,
): Promise<boolean> {
  const account = { kind: 'user', id: userId } as const;
  const roles = (await rolesOfUsers(db, [userId])).get(userId) ?? [];
  const requirement = await signInRequirementOf(
    db,
    tenantId,
    roles,
    (await getTenantSettings(db, tenantId)).twoFactorRequired,
  );
  const has = {
    totp: Boolean((await findTwoFactor(db, account))?.totp_secret),
    passkey: (await countPasskeysOf(db, account)) > 0,
  };
  if (passwordMeets(requirement, has)) return true;
  await recordAudit(db, {
    ...actor,
    tenantId,
    action: 'sign_in.refused',
    details: { reason: 'passkey_required' },
  });
  return false;
}
