/**
 * A tenant's user as a SCIM User (RFC 7643 section 4.1): what is answered, and what a request's
 * attributes mean here. `userName` is the e-mail the person signs in with (lower case); the
 * user's name is `name.formatted`, else the given and family names, else `displayName`, else the
 * e-mail. `externalId`, the parts of the name, `displayName` and `emails` are kept as sent
 * (`scim_users`), so that the provider reads back what it wrote; `active: false` is a disabled
 * user.
 */
import type { TeamMember } from '../accounts/index.js';
import { AppError } from '../platform/errors.js';
import { nowIso } from '../platform/time.js';
import type { FilterRules } from './list.js';
import type { ResourceSpec } from './patch.js';
import type { ScimUserRow } from './table.js';
import { booleanOf, isObject, type JsonObject, textOf } from './values.js';

export const userSchema = 'urn:ietf:params:scim:schemas:core:2.0:User';

export const userSpec: ResourceSpec = [
  { name: 'userName', kind: 'simple' },
  { name: 'name', kind: 'complex', sub: ['formatted', 'givenName', 'familyName'] },
  { name: 'displayName', kind: 'simple' },
  { name: 'emails', kind: 'multi', sub: ['value', 'type', 'primary', 'display'] },
  { name: 'active', kind: 'simple' },
  { name: 'externalId', kind: 'simple' },
  { name: 'id', kind: 'simple', readOnly: true },
  { name: 'meta', kind: 'complex', readOnly: true },
  { name: 'groups', kind: 'multi', readOnly: true },
];

export const userFilters: FilterRules = {
  known: new Set([
    'id',
    'externalid',
    'username',
    'displayname',
    'active',
    'name',
    'name.formatted',
    'name.givenname',
    'name.familyname',
    'emails',
    'emails.value',
    'emails.type',
    'emails.primary',
    'groups',
    'groups.value',
    'groups.display',
  ]),
  caseExact: new Set(['id', 'externalid', 'groups.value']),
};

/** An e-mail as the provider sent it. */
export interface ScimEmail {
  value: string;
  type?: string;
  primary?: boolean;
}

/** What a request says of a user, read and checked. */
export interface UserFields {
  email: string;
  formatted: string | null;
  givenName: string | null;
  familyName: string | null;
  displayName: string | null;
  emails: ScimEmail[] | null;
  active: boolean;
  externalId: string | null;
}

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The fields of a user's view (a POST's or PUT's body, or a view after a PATCH); `400` else. */
export function userFieldsOf(view: JsonObject): UserFields {
  const email = textOf(view.userName, 'userName', 254)?.toLowerCase();
  if (!email) throw new AppError('invalidValue', { message: 'userName is required.' });
  if (!emailPattern.test(email)) {
    throw new AppError('invalidValue', {
      message:
        'userName is the e-mail address the person signs in with, such as jane@bank.example: map it to their e-mail in the identity provider.',
    });
  }
  const name = view.name === undefined || view.name === null ? {} : view.name;
  if (!isObject(name)) throw new AppError('invalidValue', { message: 'name is an object.' });
  return {
    email,
    formatted: textOf(name.formatted, 'name.formatted', 200),
    givenName: textOf(name.givenName, 'name.givenName', 200),
    familyName: textOf(name.familyName, 'name.familyName', 200),
    displayName: textOf(view.displayName, 'displayName', 200),
    emails: emailsOf(view.emails),
    active:
      view.active === undefined || view.active === null ? true : booleanOf(view.active, 'active'),
    externalId: textOf(view.externalId, 'externalId', 254),
  };
}

function emailsOf(value: unknown): ScimEmail[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) throw new AppError('invalidValue', { message: 'emails is a list.' });
  const emails = value.map((item, i) => {
    const field = `emails[${i}]`;
    const address = isObject(item) ? textOf(item.value, `${field}.value`, 254) : null;
    if (!isObject(item) || !address) {
      throw new AppError('invalidValue', { message: `${field} has no value.` });
    }
    const type = textOf(item.type, `${field}.type`, 50);
    const primary =
      item.primary === undefined ? undefined : booleanOf(item.primary, `${field}.primary`);
    return {
      value: address,
      ...(type ? { type } : {}),
      ...(primary === undefined ? {} : { primary }),
    };
  });
  return emails.length > 0 ? emails : null;
}

/** The given and family names as one, when there is either. */
function joined(fields: Pick<UserFields, 'givenName' | 'familyName'>): string | null {
  const both = [fields.givenName, fields.familyName].filter(Boolean).join(' ');
  return both === '' ? null : both;
}

/** The user's name, from the most particular of what the provider sent. */
export function nameOf(fields: UserFields): string {
  return fields.formatted ?? joined(fields) ?? fields.displayName ?? fields.email;
}

/** The name a user's fields would make without `name.formatted`. */
export function nameFromParts(fields: UserFields): string {
  return nameOf({ ...fields, formatted: null });
}

/** The row of `scim_users` the fields make. */
export function scimRowOf(tenantId: string, userId: string, fields: UserFields): ScimUserRow {
  return {
    user_id: userId,
    tenant_id: tenantId,
    external_id: fields.externalId,
    given_name: fields.givenName,
    family_name: fields.familyName,
    display_name: fields.displayName,
    emails: fields.emails ? JSON.stringify(fields.emails) : null,
    updated_at: nowIso(),
  };
}

function storedEmails(member: TeamMember, row: ScimUserRow | undefined): ScimEmail[] {
  if (row?.emails) return JSON.parse(row.emails) as ScimEmail[];
  return [{ value: member.email, type: 'work', primary: true }];
}

/** The user as a PATCH starts from: its writable attributes as they are answered. */
export function userView(member: TeamMember, row: ScimUserRow | undefined): JsonObject {
  return {
    userName: member.email,
    name: {
      formatted: member.name,
      ...(row?.given_name ? { givenName: row.given_name } : {}),
      ...(row?.family_name ? { familyName: row.family_name } : {}),
    },
    ...(row?.display_name ? { displayName: row.display_name } : {}),
    emails: storedEmails(member, row),
    active: member.status !== 'disabled',
    ...(row?.external_id ? { externalId: row.external_id } : {}),
  };
}

/** The User resource answered for a user; `base` is the SCIM base URL, `roleNames` by role id. */
export function userResource(
  member: TeamMember,
  row: ScimUserRow | undefined,
  roleNames: ReadonlyMap<string, string>,
  base: string,
): JsonObject {
  const view = userView(member, row);
  const lastModified = row && row.updated_at > member.updatedAt ? row.updated_at : member.updatedAt;
  return {
    schemas: [userSchema],
    id: member.id,
    ...view,
    displayName: row?.display_name ?? member.name,
    ...(member.roles.length > 0
      ? {
          groups: member.roles.map((id) => ({
            value: id,
            display: roleNames.get(id) ?? id,
            $ref: `${base}/Groups/${encodeURIComponent(id)}`,
          })),
        }
      : {}),
    meta: {
      resourceType: 'User',
      created: member.createdAt,
      lastModified,
      location: `${base}/Users/${encodeURIComponent(member.id)}`,
    },
  };
}
