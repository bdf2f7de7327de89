import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CreatedApiKey } from '../../api-keys/schemas.js';
import { createApiKey, getApiKey, listApiKeys, revokeApiKey } from '../../api-keys/service.js';
import type { Db } from '../../platform/db.js';
import { recordAudit } from '../audit/service.js';
import { auditBy, tenantOf } from '../web/context.js';
import { fieldOf, noRefusal, type Refusal, refusalOf } from '../web/forms.js';
import { csrfToken, redirectTo, sectionPage } from '../web/layout.js';
import { apiKeyList, apiKeyMessages, createdKey, revokeConfirmation } from './views.js';

const notices: Record<string, string> = { revoked: 'Key revoked.' };

export async function apiKeyRoutes(app: FastifyInstance, { db }: { db: Db }) {
  const page = sectionPage('api-keys', notices);

  const showList = async (
    request: FastifyRequest,
    reply: FastifyReply,
    name = '',
    refusal: Refusal = noRefusal,
    status = 200,
  ) => {
    const { tenantId } = tenantOf(request);
    const keys = await listApiKeys(db, tenantId);
    const body = apiKeyList({
      keys,
      csrfToken: csrfToken(reply),
      name,
      errors: refusal.form,
      fieldErrors: refusal.fields,
    });
    return page(request, reply, 'API Key Management', body, status);
  };

  app.get('/api-keys', (request, reply) => showList(request, reply));

  app.post('/api-keys', async (request, reply) => {
    const { tenantId } = tenantOf(request);
    const name = fieldOf(request.body, 'name').trim();
    let created: CreatedApiKey;
    try {
      created = await db.transaction().execute(async (trx) => {
        const key = await createApiKey(trx, tenantId, { name });
        await recordAudit(trx, {
          ...auditBy(request),
          action: 'api_key.created',
          target: key.name,
          details: { id: key.id, prefix: key.prefix },
        });
        return key;
      });
    } catch (error) {
      const refusal = refusalOf(error, apiKeyMessages);
      if (!refusal) throw error;
      return showList(request, reply, name, refusal, 400);
    }
    // Answered here, not after a redirect: the key exists nowhere else to show it from.
    return page(request, reply, 'Key created', createdKey(created), 201);
  });

  app.get<{ Params: { id: string } }>('/api-keys/:id/revoke', async (request, reply) => {
    const { tenantId } = tenantOf(request);
    const key = await getApiKey(db, tenantId, request.params.id);
    if (key.revoked_at) return redirectTo(reply, '/api-keys');
    return page(request, reply, `Revoke ${key.name}`, revokeConfirmation(key, csrfToken(reply)));
  });

  app.post<{ Params: { id: string } }>('/api-keys/:id/revoke', async (request, reply) => {
    const { tenantId } = tenantOf(request);
    const key = await getApiKey(db, tenantId, request.params.id);
    const revoked = await revokeApiKey(db, tenantId, key.id);
    await recordAudit(db, {
      ...auditBy(request),
      action: 'api_key.revoked',
      target: key.name,
      details: { id: key.id, prefix: key.prefix, revoked_at: revoked.revoked_at },
    });
    return redirectTo(reply, '/api-keys?notice=revoked');
  });
}
