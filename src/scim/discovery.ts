/**
 * What `/ServiceProviderConfig`, `/ResourceTypes` and `/Schemas` answer (RFC 7643 sections 5 to
 * 7, RFC 7644 section 4): the features this service has (PATCH, filters; no bulk, sort, ETags
 * or password change), the two kinds of resource, and the attributes each keeps.
 */
import { AppError } from '../platform/errors.js';
import { groupSchema } from './groups.js';
import { listResponseSchema, maxResults } from './list.js';
import { userSchema } from './user-resource.js';
import type { JsonObject } from './values.js';

export function serviceProviderConfig(base: string): JsonObject {
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'OAuth Bearer Token',
        description:
          'A SCIM token of the tenant, made in the back-office (Settings, SCIM provisioning), in the header Authorization: Bearer <token>.',
        specUri: 'https://www.rfc-editor.org/info/rfc6750',
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
  };
}

const resourceTypes = [
  {
    id: 'User',
    endpoint: '/Users',
    description: "A person of the tenant's team, who signs in to the back-office.",
    schema: userSchema,
  },
  {
    id: 'Group',
    endpoint: '/Groups',
    description: 'A role of the tenant: its members hold it.',
    schema: groupSchema,
  },
];

function resourceType(type: (typeof resourceTypes)[number], base: string): JsonObject {
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
    id: type.id,
    name: type.id,
    endpoint: type.endpoint,
    description: type.description,
    schema: type.schema,
    meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/${type.id}` },
  };
}

type Definition = Record<string, unknown> & { name: string };

/** An attribute's definition: a readable, optional, single string unless `rest` says more. */
function attribute(name: string, description: string, rest: JsonObject = {}): Definition {
  return {
    name,
    type: 'string',
    multiValued: false,
    description,
    required: false,
    caseExact: false,
    mutability: 'readWrite',
    returned: 'default',
    uniqueness: 'none',
    ...rest,
  };
}

const userAttributes = [
  attribute('userName', 'The e-mail address the person signs in with, in lower case.', {
    required: true,
    uniqueness: 'server',
  }),
  attribute('name', "The person's name; the user's name is `formatted`, else the two parts.", {
    type: 'complex',
    subAttributes: [
      attribute('formatted', 'The full name, as the team sees it.'),
      attribute('familyName', 'The family name.'),
      attribute('givenName', 'The given name.'),
    ],
  }),
  attribute('displayName', 'The name to display; the name when none is given.'),
  attribute('emails', 'E-mail addresses, as the provider sends them.', {
    type: 'complex',
    multiValued: true,
    subAttributes: [
      attribute('value', 'The address.'),
      attribute('type', 'What the address is for.', { canonicalValues: ['work', 'home', 'other'] }),
      attribute('primary', 'Whether it is the primary address.', { type: 'boolean' }),
    ],
  }),
  attribute('active', 'False for a disabled user, whose sessions end at once.', {
    type: 'boolean',
  }),
  attribute('groups', "The user's roles, given through the Groups.", {
    type: 'complex',
    multiValued: true,
    mutability: 'readOnly',
    subAttributes: [
      attribute('value', "The role's id.", { mutability: 'readOnly' }),
      attribute('$ref', "The role's group.", {
        type: 'reference',
        referenceTypes: ['Group'],
        mutability: 'readOnly',
      }),
      attribute('display', "The role's name.", { mutability: 'readOnly' }),
    ],
  }),
];

const groupAttributes = [
  attribute('displayName', "The role's name: a group is named as a role of the tenant.", {
    required: true,
    uniqueness: 'server',
  }),
  attribute('members', 'The users who hold the role.', {
    type: 'complex',
    multiValued: true,
    subAttributes: [
      attribute('value', "The user's id.", { mutability: 'immutable', caseExact: true }),
      attribute('$ref', "The user's address.", {
        type: 'reference',
        referenceTypes: ['User'],
        mutability: 'immutable',
      }),
      attribute('display', "The user's name.", { mutability: 'readOnly' }),
      attribute('type', 'Always User.', { canonicalValues: ['User'], mutability: 'immutable' }),
    ],
  }),
];

const schemaDefinitions = [
  { id: userSchema, name: 'User', description: 'User account', attributes: userAttributes },
  { id: groupSchema, name: 'Group', description: 'Group (a role)', attributes: groupAttributes },
];

function schemaResource(schema: (typeof schemaDefinitions)[number], base: string): JsonObject {
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
    ...schema,
    meta: { resourceType: 'Schema', location: `${base}/Schemas/${schema.id}` },
  };
}

/** Discovery lists are whole: filters and paging do not apply (RFC 7644 section 4). */
function list(resources: JsonObject[]): JsonObject {
  return {
    schemas: [listResponseSchema],
    totalResults: resources.length,
    startIndex: 1,
    itemsPerPage: resources.length,
    Resources: resources,
  };
}

export function listResourceTypes(base: string): JsonObject {
  return list(resourceTypes.map((type) => resourceType(type, base)));
}

export function getResourceType(base: string, id: string): JsonObject {
  const type = resourceTypes.find((t) => t.id === id);
  if (!type) throw new AppError('notFound', { message: 'No such resource type.' });
  return resourceType(type, base);
}

export function listSchemas(base: string): JsonObject {
  return list(schemaDefinitions.map((schema) => schemaResource(schema, base)));
}

export function getSchema(base: string, id: string): JsonObject {
  const schema = schemaDefinitions.find((s) => s.id === id);
  if (!schema) throw new AppError('notFound', { message: 'No such schema.' });
  return schemaResource(schema, base);
}
