/**
 * `/scim/v2` (RFC 7644): a tenant's identity provider provisions its team. Every request needs
 * a SCIM token of the tenant (`Authorization: Bearer scim_…`), checked before its body is read;
 * bodies are JSON as `application/scim+json` or `application/json`; answers are
 * `application/scim+json`, errors included (`errors.ts`). Left out of the OpenAPI document, as
 * everything outside `/api` and `/cookies/v1` is: SCIM describes itself (`/Schemas`, …).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthThrottle } from '../api-keys/index.js';
import type { Db } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { jsonBodyParser } from '../platform/json-body.js';
import {
  getResourceType,
  getSchema,
  listResourceTypes,
  listSchemas,
  serviceProviderConfig,
} from './discovery.js';
import { scimMediaType, sendScimError } from './errors.js';
import {
  createGroup,
  deleteGroup,
  getGroup,
  listGroups,
  patchGroup,
  replaceGroup,
} from './groups.js';
import { type ListQuery, projected } from './list.js';
import type { ScimCaller } from './schemas.js';
import { scimActor, scimCallerOf } from './tokens.js';
import {
  createUser,
  deleteUser,
  getUser,
  listUsers,
  patchUser,
  replaceUser,
  type ScimScope,
} from './users.js';
import type { JsonObject } from './values.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by `/scim/v2`'s token check on every request that passed it. */
    scimCaller: ScimCaller | null;
  }
}

/** More than the API's 16 KiB: a group's members come in one PATCH, hundreds at a time. */
const scimBodyLimit = 512 * 1024;
const writes = { bodyLimit: scimBodyLimit };

const queryNames = ['filter', 'startIndex', 'count', 'attributes', 'excludedAttributes'] as const;

function queryOf(request: FastifyRequest): ListQuery {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const read: ListQuery = {};
  for (const name of queryNames) {
    const value = query[name];
    if (value === undefined) continue;
    if (typeof value !== 'string') {
      throw new AppError('invalidValue', { message: `${name} is given once.` });
    }
    read[name] = value;
  }
  return read;
}

function bearerOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  return typeof header === 'string' ? /^Bearer +(\S+)$/i.exec(header.trim())?.[1] : undefined;
}

function answer(reply: FastifyReply, body: JsonObject, status = 200): FastifyReply {
  return reply.code(status).type(scimMediaType).send(body);
}

function created(reply: FastifyReply, body: JsonObject): FastifyReply {
  const meta = body.meta as { location?: string } | undefined;
  if (meta?.location) reply.header('location', meta.location);
  return answer(reply, body, 201);
}

export async function scimRoutes(
  app: FastifyInstance,
  o: { db: Db; publicBaseUrl: string; throttle: AuthThrottle },
): Promise<void> {
  const { db } = o;
  const base = `${o.publicBaseUrl}/scim/v2`;
  app.addContentTypeParser('application/scim+json', { parseAs: 'string' }, jsonBodyParser(app));
  app.setErrorHandler((error, request, reply) => sendScimError(error, request, reply));
  app.setNotFoundHandler((request, reply) =>
    sendScimError(new AppError('notFound'), request, reply),
  );
  app.decorateRequest('scimCaller', null);
  // Failed tokens count against the address as failed API keys do: a guesser is slowed alike.
  app.addHook('onRequest', async (request) => {
    const retryAfter = o.throttle.blockedFor(request.ip);
    if (retryAfter > 0) {
      throw new AppError('tooManyRequests', { headers: { 'retry-after': String(retryAfter) } });
    }
    const caller = await scimCallerOf(db, bearerOf(request), (error) =>
      request.log.warn({ err: error }, 'last use of a SCIM token not recorded'),
    );
    if (!caller) {
      o.throttle.recordFailure(request.ip);
      throw new AppError('unauthorized', {
        message: 'A SCIM token of the tenant is required: Authorization: Bearer scim_…',
        headers: { 'www-authenticate': 'Bearer realm="scim"' },
      });
    }
    request.scimCaller = caller;
  });

  const callerOf = (request: FastifyRequest): ScimCaller => {
    if (!request.scimCaller) throw new AppError('unauthorized');
    return request.scimCaller;
  };
  const scopeOf = (request: FastifyRequest): ScimScope => ({
    tenantId: callerOf(request).tenantId,
    base,
  });
  const actorOf = (request: FastifyRequest) =>
    scimActor(callerOf(request), {
      ip: request.ip,
      userAgent: request.headers['user-agent'] ?? null,
    });

  app.get('/ServiceProviderConfig', async (_request, reply) =>
    answer(reply, serviceProviderConfig(base)),
  );
  app.get('/ResourceTypes', async (_request, reply) => answer(reply, listResourceTypes(base)));
  app.get<{ Params: { id: string } }>('/ResourceTypes/:id', async (request, reply) =>
    answer(reply, getResourceType(base, request.params.id)),
  );
  app.get('/Schemas', async (_request, reply) => answer(reply, listSchemas(base)));
  app.get<{ Params: { id: string } }>('/Schemas/:id', async (request, reply) =>
    answer(reply, getSchema(base, request.params.id)),
  );

  app.get('/Users', async (request, reply) =>
    answer(reply, await listUsers(db, scopeOf(request), queryOf(request))),
  );
  app.post('/Users', writes, async (request, reply) => {
    const user = await db
      .transaction()
      .execute((trx) => createUser(trx, actorOf(request), scopeOf(request), request.body));
    return created(reply, user);
  });
  app.get<{ Params: { id: string } }>('/Users/:id', async (request, reply) => {
    const user = await getUser(db, scopeOf(request), request.params.id);
    return answer(reply, projected(user, queryOf(request)));
  });
  app.put<{ Params: { id: string } }>('/Users/:id', writes, async (request, reply) => {
    const { id } = request.params;
    const user = await db
      .transaction()
      .execute((trx) => replaceUser(trx, actorOf(request), scopeOf(request), id, request.body));
    return answer(reply, user);
  });
  app.patch<{ Params: { id: string } }>('/Users/:id', writes, async (request, reply) => {
    const { id } = request.params;
    const user = await db
      .transaction()
      .execute((trx) => patchUser(trx, actorOf(request), scopeOf(request), id, request.body));
    return answer(reply, user);
  });
  app.delete<{ Params: { id: string } }>('/Users/:id', async (request, reply) => {
    const { id } = request.params;
    await db
      .transaction()
      .execute((trx) => deleteUser(trx, actorOf(request), scopeOf(request), id));
    return reply.code(204).send();
  });

  app.get('/Groups', async (request, reply) =>
    answer(reply, await listGroups(db, scopeOf(request), queryOf(request))),
  );
  app.post('/Groups', writes, async (request, reply) => {
    const group = await db
      .transaction()
      .execute((trx) => createGroup(trx, actorOf(request), scopeOf(request), request.body));
    return created(reply, group);
  });
  app.get<{ Params: { id: string } }>('/Groups/:id', async (request, reply) => {
    const group = await getGroup(db, scopeOf(request), request.params.id);
    return answer(reply, projected(group, queryOf(request)));
  });
  app.put<{ Params: { id: string } }>('/Groups/:id', writes, async (request, reply) => {
    const { id } = request.params;
    const group = await db
      .transaction()
      .execute((trx) => replaceGroup(trx, actorOf(request), scopeOf(request), id, request.body));
    return answer(reply, group);
  });
  // 204, as Entra ID's and Okta's documents show it: a group's members may be thousands.
  app.patch<{ Params: { id: string } }>('/Groups/:id', writes, async (request, reply) => {
    const { id } = request.params;
    await db
      .transaction()
      .execute((trx) => patchGroup(trx, actorOf(request), scopeOf(request), id, request.body));
    return reply.code(204).send();
  });
  app.delete<{ Params: { id: string } }>('/Groups/:id', async (request) => {
    await getGroup(db, scopeOf(request), request.params.id);
    deleteGroup();
  });
}
