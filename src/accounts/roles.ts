import type { Executor } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/time.js';
import { allPermissions, isPermission, type Permission } from './permissions.js';
import {
  countActiveHolders,
  deleteRoleRow,
  findRolePermissions,
  findRoleRow,
  findRoleRowByName,
  findUserRoleRows,
  insertRole,
  listRoleRows,
  updateRole,
} from './repository.js';

export interface Role {
  id: string;
  name: string;
  description: string;
  permissions: readonly Permission[];
  builtIn: boolean;
}

const viewing = allPermissions.filter((p) => p.endsWith(':view'));

/**
 * The roles every tenant has, which nobody can change. Their ids are their codes; a tenant's
 * own roles have UUIDs, so the two never meet.
 */
export const builtInRoles: readonly Role[] = [
  {
    id: 'admin',
    name: 'Admin',
    description: 'Everything, including the team, roles and settings.',
    permissions: allPermissions,
  },
  {
    id: 'editor',
    name: 'Editor',
    description:
      'Writes templates and drafts, keeps the register of partners, and cookie banners, and submits them for review.',
    permissions: [
      'templates:view',
      'templates:create',
      'versions:create',
      'versions:edit',
      'partners:view',
      'partners:create',
      'partners:edit',
      'cookies:view',
      'cookies:create',
      'cookies:edit',
    ],
  },
  {
    id: 'reviewer',
    name: 'Reviewer',
    description:
      'Reviews submitted versions and cookie banners: passes them on to approval, or sends them back.',
    permissions: [
      'templates:view',
      'versions:review',
      'partners:view',
      'cookies:view',
      'cookies:review',
    ],
  },
  {
    id: 'approver',
    name: 'Approver',
    description:
      'Approves reviewed versions, which publishes them, and cookie banners, or rejects them.',
    permissions: [
      'templates:view',
      'versions:approve',
      'partners:view',
      'cookies:view',
      'cookies:approve',
    ],
  },
  {
    id: 'customer_service',
    name: 'Customer service',
    description:
      "Looks up a customer's record, blocks or allows their contact channels, and blocks or allows a partner on a decision at the customer's request; opens and works on data-subject requests. Erasure, and answering a request, need their own permissions.",
    permissions: [
      'customers:view',
      'consent_decisions:edit',
      'block_channels:view',
      'block_channels:edit',
      'requests:view',
      'requests:edit',
    ],
  },
  {
    id: 'auditor',
    name: 'Auditor',
    description: 'Reads everything, downloads exports and logs, runs the decision-log audit.',
    permissions: [
      ...viewing,
      'exports:export',
      'audit_log:export',
      'decision_log:review',
      'cookies:export',
    ],
  },
].map((role) => ({ ...role, permissions: role.permissions as Permission[], builtIn: true }));

const builtInById = new Map(builtInRoles.map((role) => [role.id, role]));

function parsePermissions(stored: string): Permission[] {
  return stored.split(' ').filter(isPermission);
}

/** The union of the permissions of these roles (unknown ids grant nothing). */
export async function permissionsOfRoles(
  db: Executor,
  tenantId: string,
  roleIds: readonly string[],
): Promise<Set<Permission>> {
  const granted = new Set<Permission>();
  const custom: string[] = [];
  for (const id of roleIds) {
    const role = builtInById.get(id);
    if (role) for (const p of role.permissions) granted.add(p);
    else custom.push(id);
  }
  for (const row of await findRolePermissions(db, tenantId, custom)) {
    for (const p of parsePermissions(row.permissions)) granted.add(p);
  }
  return granted;
}

/** The role ids each of these users holds. */
export async function rolesOfUsers(
  db: Executor,
  userIds: readonly string[],
): Promise<Map<string, string[]>> {
  const roles = new Map<string, string[]>(userIds.map((id) => [id, []]));
  for (const row of await findUserRoleRows(db, userIds)) roles.get(row.user_id)?.push(row.role_id);
  return roles;
}

/** The built-in roles, then the tenant's own by name. */
export async function listRoles(db: Executor, tenantId: string): Promise<Role[]> {
  const own = (await listRoleRows(db, tenantId)).map((row) => ({
    id: row.id,
    name: row.name,
    description: row.description,
    permissions: parsePermissions(row.permissions),
    builtIn: false,
  }));
  return [...builtInRoles, ...own];
}

export async function getRole(db: Executor, tenantId: string, id: string): Promise<Role> {
  const builtIn = builtInById.get(id);
  if (builtIn) return builtIn;
  const row = await findRoleRow(db, tenantId, id);
  if (!row) throw new AppError('notFound', { message: 'No such role.' });
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    permissions: parsePermissions(row.permissions),
    builtIn: false,
  };
}

/** Every role id given exists for this tenant; `400 1001` otherwise. */
export async function checkRoleIds(
  db: Executor,
  tenantId: string,
  roleIds: readonly string[],
): Promise<void> {
  const custom = roleIds.filter((id) => !builtInById.has(id));
  const found = await findRolePermissions(db, tenantId, custom);
  if (found.length !== new Set(custom).size) {
    throw new AppError('invalidRequest', { message: 'One of the roles does not exist.' });
  }
}

export interface RoleInput {
  name: string;
  description: string;
  permissions: readonly Permission[];
}

async function refuseTakenName(db: Executor, tenantId: string, name: string, except?: string) {
  const builtInClash = builtInRoles.some((r) => r.name.toLowerCase() === name.toLowerCase());
  const row = await findRoleRowByName(db, tenantId, name);
  if (builtInClash || (row && row.id !== except)) {
    throw new AppError('conflict', { message: 'A role with this name already exists.' });
  }
}

export async function createRole(db: Executor, tenantId: string, input: RoleInput): Promise<Role> {
  await refuseTakenName(db, tenantId, input.name);
  const now = nowIso();
  const id = newId();
  await insertRole(db, {
    id,
    tenant_id: tenantId,
    name: input.name,
    description: input.description,
    permissions: [...new Set(input.permissions)].join(' '),
    created_at: now,
    updated_at: now,
  });
  return { id, ...input, builtIn: false };
}

function refuseBuiltIn(id: string): void {
  if (builtInById.has(id)) {
    throw new AppError('conflict', { message: 'Built-in roles cannot be changed.' });
  }
}

export async function changeRole(
  db: Executor,
  tenantId: string,
  id: string,
  input: RoleInput,
): Promise<Role> {
  refuseBuiltIn(id);
  await getRole(db, tenantId, id);
  await refuseTakenName(db, tenantId, input.name, id);
  await updateRole(db, id, {
    name: input.name,
    description: input.description,
    permissions: [...new Set(input.permissions)].join(' '),
    updated_at: nowIso(),
  });
  return { id, ...input, builtIn: false };
}

/** Deletes a tenant's own role; its holders lose what it granted. */
export async function deleteRole(db: Executor, tenantId: string, id: string): Promise<Role> {
  refuseBuiltIn(id);
  const role = await getRole(db, tenantId, id);
  await deleteRoleRow(db, id);
  return role;
}

/** How many active users hold the Admin role: a tenant is never left without one. */
export function countActiveAdmins(db: Executor, tenantId: string): Promise<number> {
  return countActiveHolders(db, tenantId, 'admin');
}
