import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { Db } from '../../src/platform/db.js';
import { createScimTokenAs } from '../../src/scim/index.js';
import { expectNoInternals, requestIdPattern } from '../helpers/http.js';

/** Where the test apps answer (`PUBLIC_BASE_URL` of `startTestApp`), and SCIM under it. */
export const scimBase = 'https://consent.test/scim/v2';

export const userSchema = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const groupSchema = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const listSchema = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const patchSchema = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const errorSchema = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** An answer of `/scim/v2`: its status, headers and body (parsed when there is one). */
export interface ScimAnswer {
  status: number;
  headers: LightMyRequestResponse['headers'];
  body: any;
  raw: LightMyRequestResponse;
}

/** A SCIM client as an identity provider is one: a bearer token, JSON as `application/scim+json`. */
export function scimClient(app: FastifyInstance, token: string | undefined) {
  const send = async (
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ScimAnswer> => {
    const raw = await app.inject({
      method,
      url: `/scim/v2${path}`,
      headers: {
        accept: 'application/scim+json',
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        ...(body === undefined ? {} : { 'content-type': 'application/scim+json' }),
        ...headers,
      },
      ...(body === undefined
        ? {}
        : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    return {
      status: raw.statusCode,
      headers: raw.headers,
      body: raw.body === '' ? undefined : JSON.parse(raw.body),
      raw,
    };
  };
  return {
    get: (path: string) => send('GET', path),
    post: (path: string, body: unknown, headers?: Record<string, string>) =>
      send('POST', path, body, headers),
    put: (path: string, body: unknown) => send('PUT', path, body),
    patch: (path: string, body: unknown) => send('PATCH', path, body),
    delete: (path: string) => send('DELETE', path),
  };
}

export type ScimClient = ReturnType<typeof scimClient>;

/** A token of the tenant, made as the back-office makes one (by an admin of the tenant). */
export async function makeScimToken(
  db: Db,
  tenantId: string,
  name = 'Entra ID',
): Promise<{ token: string; prefix: string; id: string }> {
  const created = await db.transaction().execute((trx) =>
    createScimTokenAs(
      trx,
      {
        tenantId,
        actorKind: 'tenant',
        actor: 'admin@bank.example',
        ip: '127.0.0.1',
        userAgent: null,
      },
      tenantId,
      { name },
    ),
  );
  return { token: created.token, prefix: created.prefix, id: created.id };
}

/**
 * Asserts a SCIM error (RFC 7644 section 3.12): the status, in the body as a string too, the
 * `scimType` (or none), a detail, SCIM's media type, a request id, and no internals.
 */
export function expectScimError(
  answer: ScimAnswer,
  status: number,
  scimType?: string,
): { detail: string } {
  if (answer.status !== status) {
    throw new Error(`expected ${status}, got ${answer.status}: ${answer.raw.body}`);
  }
  expect(answer.headers['content-type']).toBe('application/scim+json; charset=utf-8');
  expect(String(answer.headers['x-request-id'] ?? '')).toMatch(requestIdPattern);
  expectNoInternals(answer.raw.body);
  const { detail, ...rest } = answer.body as { detail: string };
  expect(rest).toEqual({
    schemas: [errorSchema],
    status: String(status),
    ...(scimType === undefined ? {} : { scimType }),
  });
  expect(typeof detail).toBe('string');
  expect(detail.length).toBeGreaterThan(0);
  return { detail };
}

/** An ISO 8601 instant, as `meta.created` and `meta.lastModified` are. */
export const instant = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
export const uuid = expect.stringMatching(
  /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
);
