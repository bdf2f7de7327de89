import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  changePartner,
  createPartner,
  deletePartner,
  getPartnerSummary,
  listPartners,
  type PartnerSummaryRow,
} from '../../partners/index.js';
import type { Db } from '../../platform/db.js';
import { auditBy, tenantOf } from '../web/context.js';
import { noRefusal, parseForm, type Refusal, refusalOf } from '../web/forms.js';
import { segment } from '../web/html.js';
import { csrfToken, redirectTo, sectionPage } from '../web/layout.js';
import { PartnerForm, partnerFormOptions } from './schemas.js';
import { newPartnerForm, type PartnerValues, partnerList, partnerPage } from './views.js';

type Params = { code: string };

const notices: Record<string, string> = {
  created: 'Partner created.',
  saved: 'Partner saved.',
  deleted: 'Partner deleted.',
};

const { messages } = partnerFormOptions;

/** The form's fields as sent (the service checks them). */
const valuesOf = (body: unknown): PartnerValues => {
  const { input } = parseForm(PartnerForm, body, partnerFormOptions);
  return {
    code: input.code ?? '',
    name: input.name ?? '',
    purpose: input.purpose ?? '',
    country: input.country ?? '',
    policy_url: input.policy_url ?? '',
  };
};

/** What the service is given: an empty optional field is one not given. */
const inputOf = ({ code, ...rest }: PartnerValues, withCode: boolean) => ({
  ...(withCode ? { code } : {}),
  name: rest.name,
  ...(rest.purpose ? { purpose: rest.purpose } : {}),
  ...(rest.country ? { country: rest.country } : {}),
  ...(rest.policy_url ? { policy_url: rest.policy_url } : {}),
});

const blank: PartnerValues = { code: '', name: '', purpose: '', country: '', policy_url: '' };

/** Partners: seen, made, changed and deleted each under its own permission. */
export async function partnerRoutes(app: FastifyInstance, { db }: { db: Db }) {
  const page = sectionPage('partners', notices);

  app.get('/partners', { config: { permission: 'partners:view' } }, async (request, reply) => {
    const user = tenantOf(request);
    const partners = await listPartners(db, user.tenantId);
    const body = partnerList(partners, user.permissions.has('partners:create'));
    return page(request, reply, 'Partners', body);
  });

  const showNew = (
    request: FastifyRequest,
    reply: FastifyReply,
    values: PartnerValues,
    refusal: Refusal = noRefusal,
  ) =>
    page(
      request,
      reply,
      'New partner',
      newPartnerForm({
        csrfToken: csrfToken(reply),
        values,
        errors: refusal.form,
        fieldErrors: refusal.fields,
      }),
      refusal === noRefusal ? 200 : 400,
    );

  app.get('/partners/new', { config: { permission: 'partners:create' } }, (request, reply) =>
    showNew(request, reply, blank),
  );

  app.post('/partners', { config: { permission: 'partners:create' } }, async (request, reply) => {
    const { tenantId } = tenantOf(request);
    const values = valuesOf(request.body);
    try {
      await db
        .transaction()
        .execute((trx) => createPartner(trx, auditBy(request), tenantId, inputOf(values, true)));
    } catch (error) {
      const refusal = refusalOf(error, messages);
      if (!refusal) throw error;
      return showNew(request, reply, values, refusal);
    }
    return redirectTo(reply, `/partners/${segment(values.code)}?notice=created`);
  });

  const show = async (
    request: FastifyRequest,
    reply: FastifyReply,
    partner: PartnerSummaryRow,
    values: PartnerValues = {
      code: partner.code,
      name: partner.name,
      purpose: partner.purpose,
      country: partner.country ?? '',
      policy_url: partner.policy_url ?? '',
    },
    refusal: Refusal = noRefusal,
    status = refusal === noRefusal ? 200 : 400,
  ) => {
    const user = tenantOf(request);
    const body = partnerPage(partner, {
      csrfToken: csrfToken(reply),
      values,
      errors: refusal.form,
      fieldErrors: refusal.fields,
      releaseCount: partner.release_count,
      zone: user.timeZone,
      mayEdit: user.permissions.has('partners:edit'),
      mayDelete: user.permissions.has('partners:delete'),
    });
    return page(request, reply, partner.name, body, status);
  };

  app.get<{ Params: Params }>(
    '/partners/:code',
    { config: { permission: 'partners:view' } },
    async (request, reply) =>
      show(
        request,
        reply,
        await getPartnerSummary(db, tenantOf(request).tenantId, request.params.code),
      ),
  );

  app.post<{ Params: Params }>(
    '/partners/:code',
    { config: { permission: 'partners:edit' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const partner = await getPartnerSummary(db, tenantId, request.params.code);
      const values = { ...valuesOf(request.body), code: partner.code };
      try {
        await db
          .transaction()
          .execute((trx) =>
            changePartner(trx, auditBy(request), tenantId, partner.code, inputOf(values, false)),
          );
      } catch (error) {
        const refusal = refusalOf(error, messages);
        if (!refusal) throw error;
        return show(request, reply, partner, values, refusal);
      }
      return redirectTo(reply, `/partners/${segment(partner.code)}?notice=saved`);
    },
  );

  app.post<{ Params: Params }>(
    '/partners/:code/delete',
    { config: { permission: 'partners:delete' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const partner = await getPartnerSummary(db, tenantId, request.params.code);
      try {
        await db
          .transaction()
          .execute((trx) => deletePartner(trx, auditBy(request), tenantId, partner.code));
      } catch (error) {
        const refusal = refusalOf(error, messages);
        if (!refusal) throw error;
        // A version lists it: the page again, saying so, with the conflict's status.
        return show(request, reply, partner, undefined, refusal, 409);
      }
      return redirectTo(reply, '/partners?notice=deleted');
    },
  );
}
