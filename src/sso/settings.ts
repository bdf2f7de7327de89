/**
 * A tenant's single sign-on settings (docs/team.md, "Single sign-on"): its identity provider,
 * the client registered there, which claims carry the e-mail and the groups, the roles each group
 * gives, whether people are made users on their first sign-in, and whether single sign-on is
 * required of everyone but one break-glass user. Changed by an admin, audited, secret sealed.
 */
import { getTeamMember, listRoles } from '../accounts/index.js';
import { type Actor, recordAudit } from '../audit-trail/index.js';
import type { Executor, Trx } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { nowIso } from '../platform/time.js';
import { deleteSsoRow, findSsoRow, saveSsoRow } from './repository.js';

/** Seals the client secret under the data key, bound to what it is for (`accountSecrets`). */
export interface SecretBox {
  seal(binding: string, plain: string): string;
  open(binding: string, sealed: string): string;
}

export interface GroupRole {
  /** The group as the provider's claim names it (a name, or an id such as Entra ID's). */
  group: string;
  /** The tenant's role id. */
  role: string;
}

export interface SsoSettings {
  issuer: string;
  clientId: string;
  emailClaim: string;
  groupsClaim: string;
  groupRoles: GroupRole[];
  createUsers: boolean;
  required: boolean;
  breakGlassUserId: string | null;
  updatedAt: string;
}

/** The settings as an admin sends them; an empty `clientSecret` keeps the one set before. */
export interface SsoSettingsInput {
  issuer: string;
  clientId: string;
  clientSecret: string;
  emailClaim: string;
  groupsClaim: string;
  groupRoles: GroupRole[];
  createUsers: boolean;
  required: boolean;
  breakGlassUserId: string | null;
}

const secretBinding = (tenantId: string) => `sso-client-secret:${tenantId}`;
const claimName = /^[A-Za-z0-9_:./-]{1,100}$/;
const loopback = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The tenant's settings, with its client secret opened; undefined when it has none. */
export async function getSsoSettings(
  db: Executor,
  secrets: SecretBox,
  tenantId: string,
): Promise<(SsoSettings & { clientSecret: string }) | undefined> {
  const row = await findSsoRow(db, tenantId);
  if (!row) return undefined;
  return {
    issuer: row.issuer,
    clientId: row.client_id,
    clientSecret: secrets.open(secretBinding(tenantId), row.client_secret_sealed),
    emailClaim: row.email_claim,
    groupsClaim: row.groups_claim,
    groupRoles: JSON.parse(row.group_roles) as GroupRole[],
    createUsers: row.create_users === 1,
    required: row.required === 1,
    breakGlassUserId: row.break_glass_user_id,
    updatedAt: row.updated_at,
  };
}

/**
 * Whether a user of the tenant may sign in with their password: always, unless the tenant
 * requires single sign-on and they are not its break-glass user; a refusal is audited
 * (`sign_in.refused`, `sso_required`).
 */
export async function admitPasswordSignIn(
  db: Executor,
  tenantId: string,
  userId: string,
  actor: Actor,
): Promise<boolean> {
  const row = await findSsoRow(db, tenantId);
  if (row?.required !== 1 || row.break_glass_user_id === userId) return true;
  await recordAudit(db, {
    ...actor,
    tenantId,
    action: 'sign_in.refused',
    details: { reason: 'sso_required' },
  });
  return false;
}

function invalid(field: string, issue: string): AppError {
  return new AppError('invalidRequest', { details: [{ field, issue }] });
}

/** An issuer an ID token can name: https, or http on this machine alone (a provider in a test). */
export function checkIssuer(issuer: string): string {
  let url: URL;
  try {
    url = new URL(issuer.trim());
  } catch {
    throw invalid(
      'issuer',
      'must be the provider’s issuer URL, such as https://login.example/realm',
    );
  }
  const local = url.protocol === 'http:' && loopback.has(url.hostname);
  if ((url.protocol !== 'https:' && !local) || url.search || url.hash || url.username) {
    throw invalid('issuer', 'must be an https URL (http only for localhost) with no query');
  }
  return url.href.replace(/\/$/, '');
}

/**
 * Saves the tenant's settings after checking them: `400 1001` naming the field. With SSO
 * required, the break-glass user must be an active user of the tenant with a second factor, so
 * that a provider that is down or misconfigured never locks the tenant out.
 */
export async function saveSsoSettings(
  trx: Trx,
  secrets: SecretBox,
  actor: Actor,
  tenantId: string,
  input: SsoSettingsInput,
): Promise<SsoSettings> {
  const issuer = checkIssuer(input.issuer);
  const clientId = input.clientId.trim();
  if (clientId.length < 1 || clientId.length > 200) {
    throw invalid('client_id', 'must be the client id the provider gave, 1 to 200 characters');
  }
  const before = await findSsoRow(trx, tenantId);
  const secret = input.clientSecret.trim();
  if (secret === '' && !before) throw invalid('client_secret', 'must be the client’s secret');
  if (secret.length > 1000) throw invalid('client_secret', 'must be at most 1000 characters');
  for (const [field, value] of [
    ['email_claim', input.emailClaim],
    ['groups_claim', input.groupsClaim],
  ] as const) {
    if (!claimName.test(value)) throw invalid(field, 'must be a claim’s name, such as email');
  }
  const roles = new Set((await listRoles(trx, tenantId)).map((role) => role.id));
  const groupRoles = input.groupRoles.map(({ group, role }) => ({ group: group.trim(), role }));
  for (const { group, role } of groupRoles) {
    if (group === '' || group.length > 256) {
      throw invalid('group_roles', 'each line names a group, then = and a role');
    }
    if (!roles.has(role)) throw invalid('group_roles', `names a role the tenant has not: ${role}`);
  }
  if (input.required) {
    const id = input.breakGlassUserId;
    const member = id ? await getTeamMember(trx, tenantId, id).catch(() => undefined) : undefined;
    if (member?.status !== 'active' || !member.twoFactor) {
      throw invalid(
        'break_glass_user_id',
        'must be an active user with a second factor, who may still sign in if the provider fails',
      );
    }
  }
  const updatedAt = nowIso();
  await saveSsoRow(trx, {
    tenant_id: tenantId,
    issuer,
    client_id: clientId,
    client_secret_sealed:
      secret === '' && before
        ? before.client_secret_sealed
        : secrets.seal(secretBinding(tenantId), secret),
    email_claim: input.emailClaim,
    groups_claim: input.groupsClaim,
    group_roles: JSON.stringify(groupRoles),
    create_users: input.createUsers ? 1 : 0,
    required: input.required ? 1 : 0,
    break_glass_user_id: input.required ? input.breakGlassUserId : null,
    updated_at: updatedAt,
  });
  const settings: SsoSettings = {
    issuer,
    clientId,
    emailClaim: input.emailClaim,
    groupsClaim: input.groupsClaim,
    groupRoles,
    createUsers: input.createUsers,
    required: input.required,
    breakGlassUserId: input.required ? input.breakGlassUserId : null,
    updatedAt,
  };
  const { updatedAt: _at, ...audited } = settings;
  await recordAudit(trx, {
    ...actor,
    tenantId,
    action: 'sso.changed',
    details: { ...audited, client_secret: secret === '' ? 'kept' : 'set' },
  });
  return settings;
}

/** Turns single sign-on off: every user signs in with their password again. */
export async function removeSsoSettings(trx: Trx, actor: Actor, tenantId: string): Promise<void> {
  await deleteSsoRow(trx, tenantId);
  await recordAudit(trx, { ...actor, tenantId, action: 'sso.removed' });
}
