import type { Executor, Trx } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/time.js';
import { countPasskeysOfUsers } from './passkey-repository.js';
import type { Permission } from './permissions.js';
import {
  deleteUserRow,
  emailTaken,
  findUserRow,
  insertUser,
  listUserRows,
  replaceUserRoles,
  updateUser,
} from './repository.js';
import { checkRoleIds, countActiveAdmins, listRoles, rolesOfUsers } from './roles.js';
import type { UserRow } from './table.js';

/** A user as the team page shows them. */
export interface TeamMember {
  id: string;
  email: string;
  name: string;
  status: UserRow['status'];
  roles: string[];
  createdAt: string;
  /** When the user's name, e-mail, roles or status last changed. */
  updatedAt: string;
  lastSignInAt: string | null;
  /** Whether they sign in with a second factor (an authenticator app). */
  twoFactor: boolean;
  /** How many passkeys they have. */
  passkeys: number;
}

function member(row: UserRow, roles: string[], passkeys: Map<string, number>): TeamMember {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    status: row.status,
    roles,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    lastSignInAt: row.last_sign_in_at,
    twoFactor: row.two_factor_since !== null,
    passkeys: passkeys.get(row.id) ?? 0,
  };
}

async function passkeysOf(db: Executor, ids: readonly string[]): Promise<Map<string, number>> {
  return new Map((await countPasskeysOfUsers(db, ids)).map((r) => [r.account_id, Number(r.n)]));
}

export async function listTeam(db: Executor, tenantId: string): Promise<TeamMember[]> {
  const rows = await listUserRows(db, tenantId);
  const roles = await rolesOfUsers(
    db,
    rows.map((r) => r.id),
  );
  const passkeys = await passkeysOf(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((row) => member(row, roles.get(row.id) ?? [], passkeys));
}

export async function getTeamMember(
  db: Executor,
  tenantId: string,
  userId: string,
): Promise<TeamMember> {
  const row = await findUserRow(db, tenantId, userId);
  if (!row) throw new AppError('notFound', { message: 'No such user.' });
  const roles = await rolesOfUsers(db, [row.id]);
  return member(row, roles.get(row.id) ?? [], await passkeysOf(db, [row.id]));
}

/** One e-mail, one account, across the service: sign-in asks for nothing else. */
export async function refuseTakenEmail(db: Executor, email: string): Promise<void> {
  if (await emailTaken(db, email.toLowerCase())) {
    throw new AppError('conflict', { message: 'An account with this e-mail already exists.' });
  }
}

/**
 * Adds a user to a tenant: `invited` (no password yet, until they take their invitation) or,
 * for a tenant's first user, `active` with the password hash given; `active` with none for one
 * made on their first single sign-on.
 */
export async function addUser(
  trx: Trx,
  tenantId: string,
  fields: {
    email: string;
    name: string;
    roles: readonly string[];
    passwordHash?: string;
    /** Active with no password: a person their identity provider vouched for (single sign-on). */
    active?: boolean;
  },
): Promise<TeamMember> {
  const email = fields.email.toLowerCase();
  await refuseTakenEmail(trx, email);
  await checkRoleIds(trx, tenantId, fields.roles);
  const now = nowIso();
  const row: UserRow = {
    id: newId(),
    tenant_id: tenantId,
    email,
    name: fields.name,
    password_hash: fields.passwordHash ?? null,
    status: fields.passwordHash === undefined && !fields.active ? 'invited' : 'active',
    created_at: now,
    updated_at: now,
    last_sign_in_at: null,
    totp_secret: null,
    totp_last_step: null,
    two_factor_since: null,
  };
  await insertUser(trx, row);
  await replaceUserRoles(trx, row.id, [...new Set(fields.roles)]);
  return member(row, [...new Set(fields.roles)], new Map());
}

/**
 * A change that would leave the tenant with no active admin is refused: nobody could manage the
 * team any more (the operator's recovery link is the way back from a lockout, not the rule).
 */
async function keepAnAdmin(trx: Executor, tenantId: string): Promise<void> {
  if ((await countActiveAdmins(trx, tenantId)) === 0) {
    throw new AppError('conflict', {
      message:
        'The tenant would have no active admin left. Give the Admin role to someone else first.',
    });
  }
}

export async function setUserRoles(
  trx: Trx,
  tenantId: string,
  userId: string,
  roles: readonly string[],
): Promise<{ before: TeamMember; after: TeamMember }> {
  const before = await getTeamMember(trx, tenantId, userId);
  await checkRoleIds(trx, tenantId, roles);
  await replaceUserRoles(trx, userId, [...new Set(roles)]);
  await updateUser(trx, userId, { updated_at: nowIso() });
  await keepAnAdmin(trx, tenantId);
  return { before, after: { ...before, roles: [...new Set(roles)] } };
}

export async function renameUser(
  trx: Trx,
  tenantId: string,
  userId: string,
  name: string,
): Promise<TeamMember> {
  const user = await getTeamMember(trx, tenantId, userId);
  await updateUser(trx, userId, { name, updated_at: nowIso() });
  return { ...user, name };
}

/** Disables an active user, or enables a disabled one (an invited user stays invited). */
export async function setUserDisabled(
  trx: Trx,
  tenantId: string,
  userId: string,
  disabled: boolean,
): Promise<TeamMember> {
  const user = await getTeamMember(trx, tenantId, userId);
  if (user.status === 'invited') {
    throw new AppError('conflict', { message: 'This user has not taken their invitation yet.' });
  }
  const status = disabled ? 'disabled' : 'active';
  if (user.status === status) return user;
  await updateUser(trx, userId, { status, updated_at: nowIso() });
  if (disabled) await keepAnAdmin(trx, tenantId);
  return { ...user, status };
}

/** Removes a user for good; the audit log keeps their name and e-mail in its entries. */
export async function removeUser(trx: Trx, tenantId: string, userId: string): Promise<TeamMember> {
  const user = await getTeamMember(trx, tenantId, userId);
  await deleteUserRow(trx, userId);
  await keepAnAdmin(trx, tenantId);
  return user;
}

/** Sets the password of a user taking an invitation or a reset: the user becomes active. */
export async function setUserPasswordHash(
  trx: Trx,
  userId: string,
  passwordHash: string,
  activate: boolean,
): Promise<void> {
  await updateUser(trx, userId, {
    password_hash: passwordHash,
    ...(activate ? { status: 'active' as const } : {}),
    updated_at: nowIso(),
  });
}

export async function recordSignInOf(db: Executor, userId: string): Promise<void> {
  await updateUser(db, userId, { last_sign_in_at: nowIso() });
}

/** The active users whose roles grant `permission`: the people to tell of work waiting for it. */
export async function activeUsersWith(
  db: Executor,
  tenantId: string,
  permission: Permission,
): Promise<Array<Pick<TeamMember, 'id' | 'email' | 'name'>>> {
  const [rows, roles] = await Promise.all([listUserRows(db, tenantId), listRoles(db, tenantId)]);
  const active = rows.filter((row) => row.status === 'active');
  const granting = new Set(
    roles.filter((r) => r.permissions.includes(permission)).map((r) => r.id),
  );
  const held = await rolesOfUsers(
    db,
    active.map((r) => r.id),
  );
  return active
    .filter((row) => (held.get(row.id) ?? []).some((roleId) => granting.has(roleId)))
    .map((row) => ({ id: row.id, email: row.email, name: row.name }));
}

/** Someone holding a role, as the roles' pages name them. */
export interface RoleHolder {
  id: string;
  name: string;
  email: string;
  /** Whether this role is the only one they hold: without it they would have none. */
  onlyThisRole: boolean;
}

/** Who holds each role of the tenant (by role id; a role nobody holds is absent), by name. */
export async function holdersOfRoles(
  db: Executor,
  tenantId: string,
): Promise<Map<string, RoleHolder[]>> {
  const holders = new Map<string, RoleHolder[]>();
  for (const member of await listTeam(db, tenantId)) {
    for (const roleId of new Set(member.roles)) {
      const list = holders.get(roleId) ?? [];
      list.push({
        id: member.id,
        name: member.name,
        email: member.email,
        onlyThisRole: member.roles.length === 1,
      });
      holders.set(roleId, list);
    }
  }
  return holders;
}
