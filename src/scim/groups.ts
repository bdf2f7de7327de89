/**
 * A tenant's roles as SCIM Groups (RFC 7643 section 4.2), for `/scim/v2/Groups`: each role is a
 * group (its id, its name as `displayName`, its holders as `members`), built-in roles and the
 * tenant's own alike. A group's members are given or taken its role through `changeUser`,
 * audited as made by the SCIM token; the roles themselves are the back-office's: a group is
 * "made" only by naming a role the tenant has, never renamed, never deleted over SCIM.
 */
import {
  changeUser,
  getRole,
  getTeamMember,
  holdersOfRoles,
  listRoles,
  type Role,
  type RoleHolder,
} from '../accounts/index.js';
import type { Actor } from '../audit-trail/index.js';
import type { Executor, Trx } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { type FilterRules, type ListQuery, listResponse } from './list.js';
import { applyPatch, type ResourceSpec, viewOf } from './patch.js';
import type { ScimScope } from './users.js';
import { isObject, type JsonObject, textOf } from './values.js';

export const groupSchema = 'urn:ietf:params:scim:schemas:core:2.0:Group';

export const groupSpec: ResourceSpec = [
  { name: 'displayName', kind: 'simple' },
  { name: 'members', kind: 'multi', sub: ['value', 'display', '$ref', 'type'], exact: ['value'] },
  { name: 'id', kind: 'simple', readOnly: true },
  { name: 'meta', kind: 'complex', readOnly: true },
];

export const groupFilters: FilterRules = {
  known: new Set(['id', 'displayname', 'members', 'members.value', 'members.display']),
  caseExact: new Set(['id', 'members.value']),
};

function groupResource(role: Role, holders: readonly RoleHolder[], base: string): JsonObject {
  const location = `${base}/Groups/${encodeURIComponent(role.id)}`;
  return {
    schemas: [groupSchema],
    id: role.id,
    displayName: role.name,
    ...(holders.length > 0
      ? {
          members: holders.map((holder) => ({
            value: holder.id,
            display: holder.name,
            $ref: `${base}/Users/${encodeURIComponent(holder.id)}`,
            type: 'User',
          })),
        }
      : {}),
    meta: { resourceType: 'Group', location },
  };
}

export async function getGroup(db: Executor, scope: ScimScope, id: string): Promise<JsonObject> {
  const role = await getRole(db, scope.tenantId, id);
  const holders = await holdersOfRoles(db, scope.tenantId);
  return groupResource(role, holders.get(role.id) ?? [], scope.base);
}

export async function listGroups(
  db: Executor,
  scope: ScimScope,
  query: ListQuery,
): Promise<JsonObject> {
  const [roles, holders] = await Promise.all([
    listRoles(db, scope.tenantId),
    holdersOfRoles(db, scope.tenantId),
  ]);
  const resources = roles.map((role) =>
    groupResource(role, holders.get(role.id) ?? [], scope.base),
  );
  return listResponse(resources, query, groupFilters);
}

function bodyOf(body: unknown): JsonObject {
  if (!isObject(body))
    throw new AppError('invalidRequest', { message: 'A Group is a JSON object.' });
  return body;
}

/**
 * POST: the group of the role with that name (in any case), its members given the role beside
 * those who hold it already. A name no role has is refused, naming the tenant's roles.
 */
export async function createGroup(
  trx: Trx,
  actor: Actor,
  scope: ScimScope,
  body: unknown,
): Promise<JsonObject> {
  const view = viewOf(groupSpec, bodyOf(body));
  const name = textOf(view.displayName, 'displayName', 200);
  if (!name) throw new AppError('invalidValue', { message: 'displayName is required.' });
  const roles = await listRoles(trx, scope.tenantId);
  const role = roles.find((r) => r.name.toLowerCase() === name.toLowerCase());
  if (!role) {
    throw new AppError('invalidValue', {
      message: `No role is named "${name}". Groups are this tenant's roles: ${roles.map((r) => r.name).join(', ')}. Create a custom role in the back-office (Roles) for another group.`,
    });
  }
  const current = await holderIds(trx, scope.tenantId, role.id);
  await setMembers(trx, actor, scope.tenantId, role.id, current, [
    ...current,
    ...memberIdsOf(view.members),
  ]);
  return getGroup(trx, scope, role.id);
}

/** PUT: the role's holders become the members given; its name stays the role's. */
export async function replaceGroup(
  trx: Trx,
  actor: Actor,
  scope: ScimScope,
  id: string,
  body: unknown,
): Promise<JsonObject> {
  const role = await getRole(trx, scope.tenantId, id);
  const view = viewOf(groupSpec, bodyOf(body));
  keepName(role, view);
  const current = await holderIds(trx, scope.tenantId, role.id);
  await setMembers(trx, actor, scope.tenantId, role.id, current, memberIdsOf(view.members));
  return getGroup(trx, scope, role.id);
}

/** PATCH: the operations applied to the group's members (its name stays the role's). */
export async function patchGroup(
  trx: Trx,
  actor: Actor,
  scope: ScimScope,
  id: string,
  body: unknown,
): Promise<void> {
  const role = await getRole(trx, scope.tenantId, id);
  const current = await holderIds(trx, scope.tenantId, role.id);
  const before = { displayName: role.name, members: current.map((value) => ({ value })) };
  const after = applyPatch(groupSpec, before, body);
  keepName(role, after);
  await setMembers(trx, actor, scope.tenantId, role.id, current, memberIdsOf(after.members));
}

/** DELETE: refused. A role is deleted in the back-office, where its holders are shown first. */
export function deleteGroup(): never {
  throw new AppError('mutability', {
    message:
      "Groups are this tenant's roles, which are not deleted over SCIM. Remove the group's members, or delete a custom role in the back-office (Roles).",
  });
}

function keepName(role: Role, view: JsonObject): void {
  const name = textOf(view.displayName, 'displayName', 200);
  if (name !== null && name.toLowerCase() !== role.name.toLowerCase()) {
    throw new AppError('mutability', {
      message: `A group's displayName is its role's name, "${role.name}": rename the role in the back-office (Roles).`,
    });
  }
}

async function holderIds(db: Executor, tenantId: string, roleId: string): Promise<string[]> {
  return ((await holdersOfRoles(db, tenantId)).get(roleId) ?? []).map((holder) => holder.id);
}

function memberIdsOf(members: unknown): string[] {
  if (members === undefined || members === null) return [];
  if (!Array.isArray(members))
    throw new AppError('invalidValue', { message: 'members is a list.' });
  return members.map((member, i) => {
    const id = isObject(member) ? member.value : undefined;
    if (typeof id !== 'string' || id === '') {
      throw new AppError('invalidValue', { message: `members[${i}] has no value (a user's id).` });
    }
    return id;
  });
}

/**
 * Gives the role to those who join and takes it from those who leave, joiners first (so a
 * replace that hands the Admin role on is not refused half way as the last admin leaving).
 */
async function setMembers(
  trx: Trx,
  actor: Actor,
  tenantId: string,
  roleId: string,
  current: readonly string[],
  wanted: readonly string[],
): Promise<void> {
  const now = new Set(current);
  const next = new Set(wanted);
  for (const id of next) {
    if (now.has(id)) continue;
    const member = await getTeamMember(trx, tenantId, id).catch((error: unknown) => {
      if (error instanceof AppError && error.kind === 'notFound') {
        throw new AppError('invalidValue', { message: `No user of this tenant has the id ${id}.` });
      }
      throw error;
    });
    await changeUser(trx, actor, tenantId, id, {
      name: member.name,
      roles: [...member.roles, roleId],
    });
  }
  for (const id of now) {
    if (next.has(id)) continue;
    const member = await getTeamMember(trx, tenantId, id);
    await changeUser(trx, actor, tenantId, id, {
      name: member.name,
      roles: member.roles.filter((r) => r !== roleId),
    });
  }
}
