import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { keepFlash, takeFlash } from '../../accounts/index.js';
import {
  type ApiKeyView,
  type CreatedApiKey,
  createApiKeyAs,
  getApiKey,
  listApiKeys,
  NewApiKey,
  renameApiKeyAs,
  revokeApiKeyAs,
} from '../../api-keys/index.js';
import type { Db } from '../../platform/db.js';
import { auditBy, sessionTokenOf, tenantOf, zoneOf } from '../web/context.js';
import { noRefusal, parseForm, queryOf, type Refusal, refusalOf } from '../web/forms.js';
import { segment } from '../web/html.js';
import { csrfToken, redirectTo, sectionPage } from '../web/layout.js';
import { newApiKeyFormOptions } from './schemas.js';
import { apiKeyList, createdKey, keyDetails, revokeConfirmation } from './views.js';

const notices: Record<string, string> = { revoked: 'Key revoked.', renamed: 'Key renamed.' };

/** How long a new key waits for its page (the redirect that follows its creation). */
const secretMs = 2 * 60_000;

export async function apiKeyRoutes(app: FastifyInstance, { db }: { db: Db }) {
  const page = sectionPage('api-keys', notices);

  const showList = async (
    request: FastifyRequest,
    reply: FastifyReply,
    name = '',
    refusal: Refusal = noRefusal,
    status = 200,
  ) => {
    const { tenantId, permissions } = tenantOf(request);
    const search = queryOf(request.query, 'q').trim().slice(0, 100);
    const keys = await listApiKeys(db, tenantId, search);
    const body = apiKeyList({
      keys,
      search,
      may: {
        create: permissions.has('api_keys:create'),
        revoke: permissions.has('api_keys:delete'),
      },
      csrfToken: csrfToken(reply),
      name,
      zone: zoneOf(request),
      errors: refusal.form,
      fieldErrors: refusal.fields,
    });
    return page(request, reply, 'API Key Management', body, status);
  };

  app.get('/api-keys', { config: { permission: 'api_keys:view' } }, (request, reply) =>
    showList(request, reply),
  );

  app.post('/api-keys', { config: { permission: 'api_keys:create' } }, async (request, reply) => {
    const { tenantId } = tenantOf(request);
    const form = parseForm(NewApiKey, request.body, newApiKeyFormOptions);
    const name = form.input.name ?? '';
    if (!form.ok) return showList(request, reply, name, form.refusal, 400);
    const values = form.values;
    let created: CreatedApiKey;
    try {
      created = await db
        .transaction()
        .execute((trx) => createApiKeyAs(trx, auditBy(request), tenantId, values));
    } catch (error) {
      const refusal = refusalOf(error, newApiKeyFormOptions.messages);
      if (!refusal) throw error;
      return showList(request, reply, name, refusal, 400);
    }
    // The key exists nowhere but in this request: it is left, sealed, for the next page of this
    // session to show once, so that a reload neither shows it again nor makes another key.
    await keepFlash(db, sessionTokenOf(request), `api-key:${created.id}`, created.key, secretMs);
    return redirectTo(reply, `/api-keys/${segment(created.id)}`);
  });

  app.get<{ Params: { id: string } }>(
    '/api-keys/:id',
    { config: { permission: 'api_keys:view' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const key = await getApiKey(db, tenantId, request.params.id);
      const secret = await takeFlash(db, request.backofficeSessionToken, `api-key:${key.id}`);
      return secret === undefined
        ? showKey(request, reply, key, key.name)
        : page(request, reply, 'Key created', createdKey({ ...key, key: secret }));
    },
  );

  /** A key's page, with the rename form for those who may make keys. */
  const showKey = (
    request: FastifyRequest,
    reply: FastifyReply,
    key: ApiKeyView,
    name: string,
    refusal: Refusal = noRefusal,
  ) => {
    const mayRename = tenantOf(request).permissions.has('api_keys:create');
    const rename = mayRename
      ? { csrfToken: csrfToken(reply), name, errors: refusal.form, fieldErrors: refusal.fields }
      : undefined;
    const status = refusal === noRefusal ? 200 : 400;
    return page(
      request,
      reply,
      `Key ${key.name}`,
      keyDetails(key, zoneOf(request), rename),
      status,
    );
  };

  app.post<{ Params: { id: string } }>(
    '/api-keys/:id',
    { config: { permission: 'api_keys:create' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const key = await getApiKey(db, tenantId, request.params.id);
      const form = parseForm(NewApiKey, request.body, newApiKeyFormOptions);
      const name = form.input.name ?? '';
      if (!form.ok) return showKey(request, reply, key, name, form.refusal);
      const values = form.values;
      try {
        await db
          .transaction()
          .execute((trx) => renameApiKeyAs(trx, auditBy(request), tenantId, key.id, values));
      } catch (error) {
        const refusal = refusalOf(error, newApiKeyFormOptions.messages);
        if (!refusal) throw error;
        return showKey(request, reply, key, name, refusal);
      }
      return redirectTo(reply, `/api-keys/${segment(key.id)}?notice=renamed`);
    },
  );

  app.get<{ Params: { id: string } }>(
    '/api-keys/:id/revoke',
    { config: { permission: 'api_keys:delete' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const key = await getApiKey(db, tenantId, request.params.id);
      if (key.revoked_at) return redirectTo(reply, '/api-keys');
      return page(request, reply, `Revoke ${key.name}`, revokeConfirmation(key, csrfToken(reply)));
    },
  );

  app.post<{ Params: { id: string } }>(
    '/api-keys/:id/revoke',
    { config: { permission: 'api_keys:delete' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      await db
        .transaction()
        .execute((trx) => revokeApiKeyAs(trx, auditBy(request), tenantId, request.params.id));
      return redirectTo(reply, '/api-keys?notice=revoked');
    },
  );
}
