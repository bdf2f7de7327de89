import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { keepFlash, takeFlash } from '../../accounts/index.js';
import type { WebhookSettings } from '../../platform/config.js';
import type { Db } from '../../platform/db.js';
import type { SubjectVault } from '../../subjects/index.js';
import {
  createEndpoint,
  deleteEndpoint,
  disableEndpoint,
  type EventKinds,
  enableEndpoint,
  getEndpoint,
  listDeliveries,
  listEndpoints,
  replayFrom,
  resendDelivery,
} from '../../webhooks/index.js';
import { auditBy, sessionTokenOf, tenantOf, zoneOf } from '../web/context.js';
import { noRefusal, parseForm, queryOf, type Refusal, refusalOf } from '../web/forms.js';
import { segment } from '../web/html.js';
import { csrfToken, redirectTo, sectionPage } from '../web/layout.js';
import {
  NewEndpointForm,
  newEndpointFormOptions,
  ReplayForm,
  replayFormOptions,
} from './schemas.js';
import { createdEndpoint, deleteConfirmation, endpointDetails, endpointList } from './views.js';

const notices: Record<string, string> = {
  disabled: 'Endpoint disabled.',
  enabled: 'Endpoint enabled: deliveries go on from where they stopped.',
  replayed: 'Replay set: the events from that position are being sent again.',
  resent: 'Sent again: see the newest delivery.',
  deleted: 'Endpoint deleted.',
};

/** How long a new secret waits for its page (the redirect that follows the creation). */
const secretMs = 2 * 60_000;
const deliveriesPerPage = 50;

export async function webhookRoutes(
  app: FastifyInstance,
  {
    db,
    vault,
    settings,
    kinds,
  }: { db: Db; vault: SubjectVault; settings: WebhookSettings; kinds: EventKinds },
) {
  const page = sectionPage('webhooks', notices);
  const actor = (request: FastifyRequest) => {
    const { tenantId } = tenantOf(request);
    return { ...auditBy(request), tenantId };
  };
  const mayEdit = (request: FastifyRequest) => tenantOf(request).permissions.has('webhooks:edit');

  const showList = async (
    request: FastifyRequest,
    reply: FastifyReply,
    input: Record<string, string> = {},
    events: readonly string[] = [],
    refusal: Refusal = noRefusal,
    status = 200,
  ) => {
    const endpoints = await listEndpoints(db, tenantOf(request).tenantId);
    const body = endpointList({
      endpoints,
      mayEdit: mayEdit(request),
      csrfToken: csrfToken(reply),
      input,
      events,
      eventTypes: kinds.eventTypes,
      errors: refusal.form,
      fieldErrors: refusal.fields,
      zone: zoneOf(request),
    });
    return page(request, reply, 'Webhooks', body, status);
  };

  app.get('/webhooks', { config: { permission: 'webhooks:view' } }, (request, reply) =>
    showList(request, reply),
  );

  app.post('/webhooks', { config: { permission: 'webhooks:edit' } }, async (request, reply) => {
    const form = parseForm(NewEndpointForm, request.body, newEndpointFormOptions);
    const events = form.ok ? form.values.events : [];
    if (!form.ok) return showList(request, reply, form.input, events, form.refusal, 400);
    try {
      const { endpoint, secret } = await createEndpoint(
        db,
        vault,
        settings,
        kinds,
        actor(request),
        {
          url: form.values.url,
          events: form.values.events,
          description: form.values.description,
        },
      );
      await keepFlash(db, sessionTokenOf(request), `webhook:${endpoint.id}`, secret, secretMs);
      return redirectTo(reply, `/webhooks/${segment(endpoint.id)}`);
    } catch (error) {
      // The service's own words: they say why an address is refused.
      const refusal = refusalOf(error, {});
      if (!refusal) throw error;
      return showList(request, reply, form.input, form.values.events, refusal, 400);
    }
  });

  const showEndpoint = async (
    request: FastifyRequest<{ Params: { id: string } }>,
    reply: FastifyReply,
    replay: { from: string; error?: string } = { from: '' },
    status = 200,
  ) => {
    const { tenantId } = tenantOf(request);
    const endpoint = await getEndpoint(db, tenantId, request.params.id);
    const before = queryOf(request.query, 'before') || undefined;
    const { deliveries, next } = await listDeliveries(
      db,
      tenantId,
      endpoint.id,
      deliveriesPerPage,
      before,
    );
    const body = endpointDetails({
      endpoint,
      deliveries,
      next,
      mayEdit: mayEdit(request),
      csrfToken: csrfToken(reply),
      replayFrom: replay.from,
      replayError: replay.error,
      zone: zoneOf(request),
    });
    return page(request, reply, `Endpoint ${endpoint.url}`, body, status);
  };

  app.get<{ Params: { id: string } }>(
    '/webhooks/:id',
    { config: { permission: 'webhooks:view' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const endpoint = await getEndpoint(db, tenantId, request.params.id);
      const secret = await takeFlash(db, request.backofficeSessionToken, `webhook:${endpoint.id}`);
      if (secret !== undefined) {
        return page(request, reply, 'Endpoint added', createdEndpoint(endpoint, secret));
      }
      return showEndpoint(request, reply);
    },
  );

  for (const [path, act, notice] of [
    ['disable', disableEndpoint, 'disabled'],
    ['enable', enableEndpoint, 'enabled'],
  ] as const) {
    app.post<{ Params: { id: string } }>(
      `/webhooks/:id/${path}`,
      { config: { permission: 'webhooks:edit' } },
      async (request, reply) => {
        const by = actor(request);
        const endpoint = await db.transaction().execute((trx) => act(trx, by, request.params.id));
        return redirectTo(reply, `/webhooks/${segment(endpoint.id)}?notice=${notice}`);
      },
    );
  }

  app.post<{ Params: { id: string } }>(
    '/webhooks/:id/replay',
    { config: { permission: 'webhooks:edit' } },
    async (request, reply) => {
      const form = parseForm(ReplayForm, request.body, replayFormOptions);
      if (!form.ok) {
        const error = form.refusal.fields.from ?? replayFormOptions.messages.from;
        return showEndpoint(request, reply, { from: form.input.from ?? '', error }, 400);
      }
      const by = actor(request);
      const { from } = form.values;
      const endpoint = await db
        .transaction()
        .execute((trx) => replayFrom(trx, by, request.params.id, from));
      return redirectTo(reply, `/webhooks/${segment(endpoint.id)}?notice=replayed`);
    },
  );

  app.post<{ Params: { id: string; delivery: string } }>(
    '/webhooks/:id/deliveries/:delivery/resend',
    { config: { permission: 'webhooks:edit' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const endpoint = await getEndpoint(db, tenantId, request.params.id);
      await resendDelivery(db, vault, settings, kinds, tenantId, request.params.delivery);
      return redirectTo(reply, `/webhooks/${segment(endpoint.id)}?notice=resent`);
    },
  );

  app.get<{ Params: { id: string } }>(
    '/webhooks/:id/delete',
    { config: { permission: 'webhooks:edit' } },
    async (request, reply) => {
      const endpoint = await getEndpoint(db, tenantOf(request).tenantId, request.params.id);
      const body = deleteConfirmation(endpoint, csrfToken(reply));
      return page(request, reply, `Delete ${endpoint.url}`, body);
    },
  );

  app.post<{ Params: { id: string } }>(
    '/webhooks/:id/delete',
    { config: { permission: 'webhooks:edit' } },
    async (request, reply) => {
      const by = actor(request);
      await db.transaction().execute((trx) => deleteEndpoint(trx, by, request.params.id));
      return redirectTo(reply, '/webhooks?notice=deleted');
    },
  );
}
