import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../platform/db.js';
import { AppError } from '../../platform/errors.js';
import { findProduct, listProducts } from '../../products/index.js';
import {
  changeDataCategoriesAs,
  changeRepresentationAs,
  changeTemplateAs,
  getTemplateByCode,
  parseRepresentation,
  representationBases,
  restoreTemplate,
  retireTemplate,
  templateOverview,
} from '../../templates/index.js';
import { auditBy, tenantOf } from '../web/context.js';
import { confirmed, formErrors, parseForm, refusalOf } from '../web/forms.js';
import { html, segment } from '../web/html.js';
import { csrfToken, redirectTo } from '../web/layout.js';
import { templateModel, versionModel } from './models.js';
import {
  RepresentationForm,
  representationFormOptions,
  SensitiveDataForm,
  sensitiveDataFormOptions,
  TemplateDetailsForm,
  templateDetailsFormOptions,
} from './schemas.js';
import { templatesPage } from './section.js';
import { templatePage } from './views.js';

type Params = { code: string };

/** A template's page; with the reason above its forms when one was refused (400). */
async function showTemplate(
  db: Db,
  request: FastifyRequest,
  reply: FastifyReply,
  code: string,
  refused?: string,
) {
  const { tenantId, timeZone, permissions } = tenantOf(request);
  const { template, versions, customers } = await templateOverview(db, tenantId, code);
  const mayChange = permissions.has('templates:create');
  const [product, products] = await Promise.all([
    template.product_id ? findProduct(db, tenantId, template.product_id) : undefined,
    mayChange ? listProducts(db, tenantId) : [],
  ]);
  const body = templatePage({
    template: templateModel(template),
    versions: versions.map(versionModel),
    customers,
    zone: timeZone,
    may: {
      draft: permissions.has('versions:create'),
      edit: permissions.has('versions:edit'),
      retire: permissions.has('templates:delete'),
      change: mayChange,
    },
    product,
    products: products.filter((p) => p.archived_at === null || p.id === template.product_id),
    csrfToken: csrfToken(reply),
  });
  const shown = refused ? html`${formErrors([refused])}${body}` : body;
  return templatesPage(request, reply, template.name, shown, refused ? 400 : 200);
}

/** A template's page, and taking it out of use (deleted or archived) or back. */
export async function templateRoutes(app: FastifyInstance, { db }: { db: Db }) {
  app.get<{ Params: Params }>(
    '/templates/:code',
    { config: { permission: 'templates:view' } },
    (request, reply) => showTemplate(db, request, reply, request.params.code),
  );

  app.post<{ Params: Params }>(
    '/templates/:code/retire',
    { config: { permission: 'templates:delete' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const template = await getTemplateByCode(db, tenantId, request.params.code);
      if (!confirmed(request.body)) {
        return showTemplate(db, request, reply, template.code, 'Tick the box to confirm.');
      }
      const outcome = await db
        .transaction()
        .execute((trx) => retireTemplate(trx, auditBy(request), template));
      return outcome === 'deleted'
        ? redirectTo(reply, '/templates?notice=deleted')
        : redirectTo(reply, `/templates/${segment(template.code)}?notice=archived`);
    },
  );

  // Its name, product and default locale; the code never changes (client systems call by it).
  app.post<{ Params: Params }>(
    '/templates/:code/details',
    { config: { permission: 'templates:create' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const template = await getTemplateByCode(db, tenantId, request.params.code);
      const form = parseForm(TemplateDetailsForm, request.body, templateDetailsFormOptions);
      try {
        await db
          .transaction()
          .execute((trx) => changeTemplateAs(trx, auditBy(request), template, form.input));
      } catch (error) {
        const refusal = refusalOf(error, {});
        if (!refusal) throw error;
        const reason = error instanceof Error ? error.message : '';
        return showTemplate(db, request, reply, template.code, reason);
      }
      return redirectTo(reply, `/templates/${segment(template.code)}?notice=changed`);
    },
  );

  // The sensitive data it covers (PDPA section 26): a given then needs explicit consent.
  app.post<{ Params: Params }>(
    '/templates/:code/sensitive-data',
    { config: { permission: 'templates:create' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const template = await getTemplateByCode(db, tenantId, request.params.code);
      const form = parseForm(SensitiveDataForm, request.body, sensitiveDataFormOptions);
      const categories = form.ok ? form.values.data_categories : [];
      try {
        await db
          .transaction()
          .execute((trx) => changeDataCategoriesAs(trx, auditBy(request), template, categories));
      } catch (error) {
        const refusal = refusalOf(error, {});
        if (!refusal) throw error;
        return showTemplate(db, request, reply, template.code, 'Tick only the categories listed.');
      }
      return redirectTo(reply, `/templates/${segment(template.code)}?notice=changed`);
    },
  );

  // Who may decide for whom (PDPA section 20): a decision that breaks it is refused.
  app.post<{ Params: Params }>(
    '/templates/:code/representation',
    { config: { permission: 'templates:create' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const template = await getTemplateByCode(db, tenantId, request.params.code);
      const form = parseForm(RepresentationForm, request.body, representationFormOptions);
      try {
        if (!form.ok) throw new AppError('invalidRequest');
        const values: Record<string, string> = form.values;
        const pairs = representationBases
          .filter((basis) => (values[basis] ?? '') !== '')
          .map((basis) => `${basis}=${values[basis]}`);
        const rule = parseRepresentation(pairs.length === 0 ? 'none' : pairs.join(','));
        await db
          .transaction()
          .execute((trx) => changeRepresentationAs(trx, auditBy(request), template, rule));
      } catch (error) {
        const refusal = refusalOf(error, {});
        if (!refusal) throw error;
        return showTemplate(db, request, reply, template.code, 'Choose who decides from the list.');
      }
      return redirectTo(reply, `/templates/${segment(template.code)}?notice=changed`);
    },
  );

  app.post<{ Params: Params }>(
    '/templates/:code/restore',
    { config: { permission: 'templates:delete' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const template = await getTemplateByCode(db, tenantId, request.params.code);
      await db.transaction().execute((trx) => restoreTemplate(trx, auditBy(request), template));
      return redirectTo(reply, `/templates/${segment(template.code)}?notice=restored`);
    },
  );
}
