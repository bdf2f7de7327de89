/**
 * The acts of a tenant's identity provider on its users through `/scim/v2/Users`: each one is
 * the accounts' own act (`provisionUser`, `changeUserEmail`, `changeUser`, `disableUser`,
 * `enableUser`, `removeUserAs`), audited as made by the SCIM token, in the caller's transaction.
 * Disabling ends the user's sessions at once; the tenant is never left without an active admin.
 */
import {
  changeUser,
  changeUserEmail,
  disableUser,
  emailInUse,
  enableUser,
  getTeamMember,
  listRoles,
  listTeam,
  provisionUser,
  removeUserAs,
  type TeamMember,
} from '../accounts/index.js';
import { type Actor, recordAudit } from '../audit-trail/index.js';
import type { Executor, Trx } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { type ListQuery, listResponse } from './list.js';
import { applyPatch, viewOf } from './patch.js';
import type { ScimUserRow } from './table.js';
import {
  nameFromParts,
  nameOf,
  scimRowOf,
  type UserFields,
  userFieldsOf,
  userFilters,
  userResource,
  userSpec,
  userView,
} from './user-resource.js';
import { findScimUserRow, listScimUserRows, saveScimUserRow } from './users-repository.js';
import { isObject, type JsonObject } from './values.js';

/** Whose users, and the SCIM base URL the answers' addresses start with. */
export interface ScimScope {
  tenantId: string;
  base: string;
}

async function roleNames(db: Executor, tenantId: string): Promise<Map<string, string>> {
  return new Map((await listRoles(db, tenantId)).map((role) => [role.id, role.name]));
}

export async function getUser(db: Executor, scope: ScimScope, id: string): Promise<JsonObject> {
  const member = await getTeamMember(db, scope.tenantId, id);
  const row = await findScimUserRow(db, scope.tenantId, id);
  return userResource(member, row, await roleNames(db, scope.tenantId), scope.base);
}

/** The tenant's users that match the query, oldest first (a page stays put as people join). */
export async function listUsers(
  db: Executor,
  scope: ScimScope,
  query: ListQuery,
): Promise<JsonObject> {
  const [team, rows, names] = await Promise.all([
    listTeam(db, scope.tenantId),
    listScimUserRows(db, scope.tenantId),
    roleNames(db, scope.tenantId),
  ]);
  const byUser = new Map(rows.map((row) => [row.user_id, row]));
  const oldestFirst = [...team].sort(
    (a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id),
  );
  const resources = oldestFirst.map((m) => userResource(m, byUser.get(m.id), names, scope.base));
  return listResponse(resources, query, userFilters);
}

async function refuseTakenEmail(db: Executor, email: string): Promise<void> {
  if (await emailInUse(db, email)) {
    throw new AppError('uniqueness', {
      message: `An account with the e-mail ${email} already exists (a user of this or another tenant, or an operator).`,
    });
  }
}

function bodyOf(body: unknown): JsonObject {
  if (!isObject(body))
    throw new AppError('invalidRequest', { message: 'A User is a JSON object.' });
  return body;
}

/** A new user: active with no password (they sign in with single sign-on), or disabled. */
export async function createUser(
  trx: Trx,
  actor: Actor,
  scope: ScimScope,
  body: unknown,
): Promise<JsonObject> {
  const fields = userFieldsOf(viewOf(userSpec, bodyOf(body)));
  await refuseTakenEmail(trx, fields.email);
  const member = await provisionUser(
    trx,
    actor,
    scope.tenantId,
    { email: fields.email, name: nameOf(fields), roles: [], active: fields.active },
    { by: 'scim', ...(fields.externalId ? { external_id: fields.externalId } : {}) },
  );
  await saveScimUserRow(trx, scimRowOf(scope.tenantId, member.id, fields));
  return getUser(trx, scope, member.id);
}

/**
 * PUT: the user becomes what the body says (what it leaves out, it clears), but for `active`:
 * left out, the user stays enabled or disabled as they are, so a PUT of a profile never lets in
 * again someone the provider deactivated.
 */
export async function replaceUser(
  trx: Trx,
  actor: Actor,
  scope: ScimScope,
  id: string,
  body: unknown,
): Promise<JsonObject> {
  const member = await getTeamMember(trx, scope.tenantId, id);
  const row = await findScimUserRow(trx, scope.tenantId, id);
  const view = viewOf(userSpec, bodyOf(body));
  const fields = userFieldsOf({ active: member.status !== 'disabled', ...view });
  await commit(trx, actor, scope, { member, row }, fields, nameOf(fields));
  return getUser(trx, scope, id);
}

/**
 * PATCH: the operations applied to the user as answered. A name made of its parts (or of the
 * display name) follows them when they change without `name.formatted`.
 */
export async function patchUser(
  trx: Trx,
  actor: Actor,
  scope: ScimScope,
  id: string,
  body: unknown,
): Promise<JsonObject> {
  const member = await getTeamMember(trx, scope.tenantId, id);
  const row = await findScimUserRow(trx, scope.tenantId, id);
  const before = userView(member, row);
  const after = applyPatch(userSpec, before, body);
  const fields = userFieldsOf(after);
  const formattedKept = isObject(after.name) && after.name.formatted === member.name;
  const derived = member.name === nameFromParts(userFieldsOf(before));
  const name = formattedKept && derived ? nameFromParts(fields) : nameOf(fields);
  await commit(trx, actor, scope, { member, row }, fields, name);
  return getUser(trx, scope, id);
}

/** Removes the user for good, ending their sessions; the audit log keeps naming them. */
export async function deleteUser(
  trx: Trx,
  actor: Actor,
  scope: ScimScope,
  id: string,
): Promise<void> {
  await removeUserAs(trx, actor, scope.tenantId, id);
}

/** Makes the user what `fields` say, each change through its own act, each audited. */
async function commit(
  trx: Trx,
  actor: Actor,
  scope: ScimScope,
  current: { member: TeamMember; row: ScimUserRow | undefined },
  fields: UserFields,
  name: string,
): Promise<void> {
  const { member, row } = current;
  const { tenantId } = scope;
  const wasActive = member.status !== 'disabled';
  if (fields.active && !wasActive) await enableUser(trx, actor, tenantId, member.id);
  if (fields.email !== member.email) {
    await refuseTakenEmail(trx, fields.email);
    await changeUserEmail(trx, actor, tenantId, member.id, fields.email);
  }
  if (name !== member.name) {
    await changeUser(trx, actor, tenantId, member.id, { name, roles: member.roles });
  }
  const next = scimRowOf(tenantId, member.id, fields);
  const changes = rowChanges(row, next);
  if (Object.keys(changes).length > 0) {
    await saveScimUserRow(trx, next);
    await recordAudit(trx, {
      ...actor,
      tenantId,
      action: 'scim.user_changed',
      target: fields.email,
      details: { user_id: member.id, ...changes },
    });
  }
  if (!fields.active && wasActive) await disableUser(trx, actor, tenantId, member.id);
}

const kept = ['external_id', 'given_name', 'family_name', 'display_name', 'emails'] as const;

/** What the provider's own attributes of the user became, each `{from, to}`. */
function rowChanges(before: ScimUserRow | undefined, after: ScimUserRow): JsonObject {
  const changes: JsonObject = {};
  for (const column of kept) {
    const from = before?.[column] ?? null;
    if (from !== after[column]) changes[column] = { from, to: after[column] };
  }
  return changes;
}
