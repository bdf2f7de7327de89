/**
 * A person their tenant's identity provider vouched for (single sign-on, `src/sso/`): the user
 * they are, made on their first sign-in when the tenant allows it, with the roles their groups
 * give them now. Each change is audited as made by the person themselves, in the sign-in's
 * transaction; a refusal throws `SsoRefused`, so that the transaction leaves nothing behind.
 */
import { recordAudit } from '../audit-trail/index.js';
import type { Trx } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { nowIso } from '../platform/time.js';
import { provisionUser } from './provisioning.js';
import { emailTaken, findUserForSignIn, updateUser } from './repository.js';
import { listRoles, rolesOfUsers } from './roles.js';
import type { Account } from './sessions.js';
import { setUserRoles } from './users.js';

/** Why single sign-on let nobody in, as the page and the audit entry name it. */
export type SsoRefusal =
  /** No user has the e-mail, and the tenant does not make users on their first sign-in. */
  | 'unknown-user'
  /** The e-mail is another tenant's user's, or an operator's. */
  | 'other-tenant'
  | 'disabled'
  /** The person's groups give them no role of the tenant. */
  | 'no-role'
  /** Their roles now would leave the tenant with no active admin. */
  | 'last-admin';

export class SsoRefused extends Error {
  constructor(readonly why: SsoRefusal) {
    super(`single sign-on refused: ${why}`);
  }
}

/** The person as the provider's ID token names them, and where they sign in from. */
export interface VouchedPerson {
  email: string;
  name: string;
  /** Role ids their groups map to (roles the tenant no longer has are left out). */
  roles: readonly string[];
  ip: string;
  userAgent: string | null;
}

/**
 * The user a vouched person is, ready to sign in: made (active, with no password) when the
 * tenant allows it, an invitation not yet taken taken, their roles made those of their groups.
 */
export async function provisionSsoUser(
  trx: Trx,
  tenantId: string,
  person: VouchedPerson,
  options: { createUsers: boolean },
): Promise<{ account: Account; email: string; name: string }> {
  const email = person.email.trim().toLowerCase();
  const known = new Set((await listRoles(trx, tenantId)).map((role) => role.id));
  const roles = [...new Set(person.roles)].filter((id) => known.has(id)).sort();
  const actor = {
    tenantId,
    actorKind: 'tenant' as const,
    actor: email,
    actorName: person.name || null,
    ip: person.ip,
    userAgent: person.userAgent,
  };
  const row = await findUserForSignIn(trx, email);
  if (!row) {
    if (await emailTaken(trx, email)) throw new SsoRefused('other-tenant');
    if (!options.createUsers) throw new SsoRefused('unknown-user');
    if (roles.length === 0) throw new SsoRefused('no-role');
    const user = await provisionUser(
      trx,
      actor,
      tenantId,
      { email, name: person.name || email, roles, active: true },
      { by: 'sso' },
    );
    return { account: { kind: 'user', id: user.id }, email, name: user.name };
  }
  if (row.tenant_id !== tenantId) throw new SsoRefused('other-tenant');
  if (row.status === 'disabled' || row.tenant_disabled_at !== null) {
    throw new SsoRefused('disabled');
  }
  if (roles.length === 0) throw new SsoRefused('no-role');
  if (row.status === 'invited') {
    await updateUser(trx, row.id, { status: 'active', updated_at: nowIso() });
  }
  const before = [...((await rolesOfUsers(trx, [row.id])).get(row.id) ?? [])].sort();
  if (before.join(' ') !== roles.join(' ')) {
    try {
      await setUserRoles(trx, tenantId, row.id, roles);
    } catch (error) {
      if (error instanceof AppError && error.kind === 'conflict')
        throw new SsoRefused('last-admin');
      throw error;
    }
    await recordAudit(trx, {
      ...actor,
      action: 'user.changed',
      target: email,
      details: { user_id: row.id, roles: { from: before, to: roles }, by: 'sso' },
    });
  }
  return { account: { kind: 'user', id: row.id }, email, name: row.name };
}
