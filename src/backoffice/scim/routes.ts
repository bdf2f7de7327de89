/** The tenant's SCIM tokens, under Settings (docs/team.md, "Provisioning with SCIM"). */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { keepFlash, takeFlash } from '../../accounts/index.js';
import type { Db } from '../../platform/db.js';
import {
  type CreatedScimToken,
  createScimTokenAs,
  getScimToken,
  listScimTokens,
  NewScimToken,
  revokeScimTokenAs,
} from '../../scim/index.js';
import { auditBy, sessionTokenOf, tenantOf, zoneOf } from '../web/context.js';
import { noRefusal, parseForm, type Refusal, refusalOf } from '../web/forms.js';
import { csrfToken, redirectTo, sectionPage } from '../web/layout.js';
import { newScimTokenFormOptions } from './schemas.js';
import { revokeConfirmation, scimPage } from './views.js';

const notices: Record<string, string> = {
  created: 'Token created.',
  revoked: 'Token revoked.',
};

/** How long a new token waits for the page the redirect after its creation opens. */
const secretMs = 2 * 60_000;
const flashName = 'scim-token';

export async function scimTokenRoutes(
  app: FastifyInstance,
  o: { db: Db; publicBaseUrl: string },
): Promise<void> {
  const { db } = o;
  const page = sectionPage('settings', notices);

  const show = async (
    request: FastifyRequest,
    reply: FastifyReply,
    name = '',
    refusal: Refusal = noRefusal,
    status = 200,
  ) => {
    const user = tenantOf(request);
    const kept = await takeFlash(db, request.backofficeSessionToken, flashName);
    const body = scimPage({
      baseUrl: `${o.publicBaseUrl}/scim/v2`,
      tokens: await listScimTokens(db, user.tenantId),
      created: kept === undefined ? undefined : (JSON.parse(kept) as CreatedScimToken),
      mayEdit: user.permissions.has('users:edit'),
      csrfToken: csrfToken(reply),
      name,
      errors: refusal.form,
      fieldErrors: refusal.fields,
      zone: zoneOf(request),
    });
    return page(request, reply, 'SCIM provisioning', body, status);
  };

  app.get('/settings/scim', { config: { permission: 'users:view' } }, (request, reply) =>
    show(request, reply),
  );

  app.post('/settings/scim', { config: { permission: 'users:edit' } }, async (request, reply) => {
    const { tenantId } = tenantOf(request);
    const form = parseForm(NewScimToken, request.body, newScimTokenFormOptions);
    const name = form.input.name ?? '';
    if (!form.ok) return show(request, reply, name, form.refusal, 400);
    const values = form.values;
    let created: CreatedScimToken;
    try {
      created = await db
        .transaction()
        .execute((trx) => createScimTokenAs(trx, auditBy(request), tenantId, values));
    } catch (error) {
      const refusal = refusalOf(error, newScimTokenFormOptions.messages);
      if (!refusal) throw error;
      return show(request, reply, name, refusal, 400);
    }
    // The token exists nowhere but in this request: it is left, sealed, for the next page of
    // this session to show once, so that a reload neither shows it again nor makes another.
    await keepFlash(db, sessionTokenOf(request), flashName, JSON.stringify(created), secretMs);
    return redirectTo(reply, '/settings/scim?notice=created');
  });

  app.get<{ Params: { id: string } }>(
    '/settings/scim/:id/revoke',
    { config: { permission: 'users:edit' } },
    async (request, reply) => {
      const token = await getScimToken(db, tenantOf(request).tenantId, request.params.id);
      if (token.revokedAt) return redirectTo(reply, '/settings/scim');
      return page(
        request,
        reply,
        `Revoke ${token.name}`,
        revokeConfirmation(token, csrfToken(reply)),
      );
    },
  );

  app.post<{ Params: { id: string } }>(
    '/settings/scim/:id/revoke',
    { config: { permission: 'users:edit' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      await db
        .transaction()
        .execute((trx) => revokeScimTokenAs(trx, auditBy(request), tenantId, request.params.id));
      return redirectTo(reply, '/settings/scim?notice=revoked');
    },
  );
}
