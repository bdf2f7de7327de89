import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { keepFlash, listTeam, takeFlash } from '../../accounts/index.js';
import type { Db } from '../../platform/db.js';
import { AppError } from '../../platform/errors.js';
import { uuidPattern } from '../../platform/ids.js';
import {
  addRequestNote,
  assignRequest,
  deliveryPath,
  type Fulfilment,
  getRequest,
  type LaterStep,
  openRequest,
  type RefusalGround,
  type RequestActor,
  type RequestKind,
  requestKindNames,
  requestQueue,
  takeStep,
} from '../../requests/index.js';
import type { SubjectVault } from '../../subjects/index.js';
import { auditBy, sessionTokenOf, tenantOf } from '../web/context.js';
import { parseForm, queryOf, refusalOf } from '../web/forms.js';
import { csrfToken, redirectTo, sectionPage } from '../web/layout.js';
import { AssignForm, NoteForm, OpenForm, StepForm } from './schemas.js';
import { requestQueue as queueView, requestPage } from './views.js';

type Params = { id: string };

/** A delivery link, kept for the one page that shows it. */
interface DeliveryLink {
  url: string;
  expires_at: string;
}
const deliveryFlash = (requestId: string) => `request-delivery:${requestId}`;
const flashMs = 2 * 60_000;

const notices: Record<string, string> = {
  opened: 'Request opened.',
  step: 'Step recorded.',
  assigned: 'Assignee saved.',
  noted: 'Note added.',
};

const uuid = new RegExp(uuidPattern);

/** The signed-in user, as a step's evidence and the audit log keep them. */
function userActor(request: FastifyRequest): RequestActor & {
  auditedAs: ReturnType<typeof auditBy>;
  userId: string;
} {
  const user = tenantOf(request);
  return {
    tenantId: user.tenantId,
    apiKeyId: null,
    userId: user.userId,
    auditedAs: auditBy(request),
    ip: request.ip,
    userAgent: request.headers['user-agent'] ?? null,
  };
}

/**
 * Data-subject requests (docs/requests.md): the queue by days left, a request's page; opening one,
 * working on it and notes under `requests:edit`, extending, completing or refusing it under
 * `requests:approve`. Every act is audited by the service.
 */
export async function requestPageRoutes(
  app: FastifyInstance,
  {
    db,
    vault,
    fulfil,
    publicBaseUrl,
  }: { db: Db; vault: SubjectVault; fulfil: Fulfilment; publicBaseUrl: string },
) {
  const page = sectionPage('requests', notices);

  const showQueue = async (
    request: FastifyRequest,
    reply: FastifyReply,
    form?: { errors: string[]; values: { customer_id: string; kind: string; details: string } },
  ) => {
    const user = tenantOf(request);
    const open = queryOf(request.query, 'closed') !== '1';
    const [requests, team] = await Promise.all([
      requestQueue(db, vault, user.tenantId, open),
      listTeam(db, user.tenantId),
    ]);
    const body = queueView({
      requests,
      open,
      zone: user.timeZone,
      mayOpen: user.permissions.has('requests:edit'),
      csrfToken: csrfToken(reply),
      names: new Map(team.map((m) => [m.id, m.name || m.email])),
      ...(form ?? {}),
    });
    return page(request, reply, 'Data-subject requests', body, form ? 400 : 200);
  };

  const showRequest = async (
    request: FastifyRequest<{ Params: Params }>,
    reply: FastifyReply,
    errors: string[] = [],
  ) => {
    const user = tenantOf(request);
    if (!uuid.test(request.params.id))
      throw new AppError('notFound', { message: 'Request not found.' });
    const [detail, team] = await Promise.all([
      getRequest(db, vault, user.tenantId, request.params.id),
      listTeam(db, user.tenantId),
    ]);
    const flashed = await takeFlash(db, sessionTokenOf(request), deliveryFlash(request.params.id));
    const delivery = flashed === undefined ? undefined : (JSON.parse(flashed) as DeliveryLink);
    const body = requestPage({
      request: detail,
      zone: user.timeZone,
      team,
      mayEdit: user.permissions.has('requests:edit'),
      mayApprove: user.permissions.has('requests:approve'),
      csrfToken: csrfToken(reply),
      errors,
      ...(delivery ? { delivery } : {}),
    });
    return page(request, reply, 'Request', body, errors.length > 0 ? 400 : 200);
  };

  app.get('/requests', { config: { permission: 'requests:view' } }, (request, reply) =>
    showQueue(request, reply),
  );

  app.post('/requests', { config: { permission: 'requests:edit' } }, async (request, reply) => {
    const { input } = parseForm(OpenForm, request.body, { messages: {}, trim: ['customer_id'] });
    const values = {
      customer_id: input.customer_id ?? '',
      kind: input.kind ?? '',
      details: input.details ?? '',
    };
    const errors: string[] = [];
    if (!/^[\x21-\x7e]{1,128}$/.test(values.customer_id)) {
      errors.push('A customer id of 1 to 128 visible ASCII characters.');
    }
    if (!requestKindNames.includes(values.kind as RequestKind)) errors.push('Choose a kind.');
    if (values.details.length > 4000)
      errors.push('What the customer asked: at most 4,000 characters.');
    if (errors.length > 0) return showQueue(request, reply, { errors, values });
    const made = await openRequest(db, vault, userActor(request), {
      customerId: values.customer_id,
      kind: values.kind as RequestKind,
      details: values.details.trim() === '' ? undefined : values.details,
    });
    return redirectTo(reply, `/requests/${made.request.id}?notice=opened`);
  });

  app.get<{ Params: Params }>(
    '/requests/:id',
    { config: { permission: 'requests:view' } },
    (request, reply) => showRequest(request, reply),
  );

  /** A step: `identity_checked` and `in_progress` here, the rest under `requests:approve`. */
  const step =
    (allowed: readonly string[]) =>
    async (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) => {
      const { input } = parseForm(StepForm, request.body, { messages: {}, trim: ['ground'] });
      if (!allowed.includes(input.step ?? '')) {
        return showRequest(request, reply, ['Choose a step.']);
      }
      let made: Awaited<ReturnType<typeof takeStep>>;
      try {
        made = await takeStep(
          db,
          vault,
          userActor(request),
          request.params.id,
          {
            step: input.step as LaterStep,
            ...(input.ground ? { ground: input.ground as RefusalGround } : {}),
            ...(input.reason?.trim() ? { reason: input.reason.trim() } : {}),
          },
          fulfil,
        );
      } catch (error) {
        const refusal = refusalOf(error, {});
        if (!refusal) throw error;
        return showRequest(request, reply, refusal.form);
      }
      if (made.delivery) {
        // The link is shown once, on the page the user is sent to, and kept nowhere else.
        const link = JSON.stringify({
          url: `${publicBaseUrl}${deliveryPath(made.delivery.token)}`,
          expires_at: made.delivery.expires_at,
        });
        await keepFlash(
          db,
          sessionTokenOf(request),
          deliveryFlash(request.params.id),
          link,
          flashMs,
        );
      }
      return redirectTo(reply, `/requests/${request.params.id}?notice=step`);
    };

  app.post<{ Params: Params }>(
    '/requests/:id/steps',
    { config: { permission: 'requests:edit' } },
    step(['identity_checked', 'in_progress']),
  );
  app.post<{ Params: Params }>(
    '/requests/:id/decision',
    { config: { permission: 'requests:approve' } },
    step(['extended', 'done', 'refused']),
  );

  app.post<{ Params: Params }>(
    '/requests/:id/assignee',
    { config: { permission: 'requests:edit' } },
    async (request, reply) => {
      const user = tenantOf(request);
      const { input } = parseForm(AssignForm, request.body, { messages: {} });
      const assignee = input.assignee_id ?? '';
      const team = await listTeam(db, user.tenantId);
      if (assignee !== '' && !team.some((m) => m.id === assignee && m.status === 'active')) {
        return showRequest(request, reply, ['Choose an active member of the team.']);
      }
      await assignRequest(db, userActor(request), request.params.id, assignee || null);
      return redirectTo(reply, `/requests/${request.params.id}?notice=assigned`);
    },
  );

  app.post<{ Params: Params }>(
    '/requests/:id/notes',
    { config: { permission: 'requests:edit' } },
    async (request, reply) => {
      const { input } = parseForm(NoteForm, request.body, { messages: {} });
      const body = (input.body ?? '').trim();
      if (body === '' || body.length > 4000) {
        return showRequest(request, reply, ['A note of 1 to 4,000 characters.']);
      }
      try {
        await addRequestNote(db, vault, userActor(request), request.params.id, body);
      } catch (error) {
        const refusal = refusalOf(error, {});
        if (!refusal) throw error;
        return showRequest(request, reply, refusal.form);
      }
      return redirectTo(reply, `/requests/${request.params.id}?notice=noted`);
    },
  );
}
