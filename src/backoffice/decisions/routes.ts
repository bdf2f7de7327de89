import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { listApiKeys } from '../../api-keys/index.js';
import type { DecisionValue } from '../../decisions/index.js';
import {
  listDecisionPartners,
  type PartnerBlockWriter,
  setPartnerBlockByUser,
} from '../../partner-blocks/index.js';
import type { Db } from '../../platform/db.js';
import { uuidPattern } from '../../platform/ids.js';
import type { ReadOn } from '../../platform/replicas.js';
import { listProducts } from '../../products/index.js';
import {
  browseDecisions,
  type DecisionFilter,
  type DecisionsPage,
  decisionEvidence,
  exportDecisionRecords,
  type LoggedDecisionRecord,
} from '../../records/index.js';
import type { SubjectVault } from '../../subjects/index.js';
import {
  canonicalLocale,
  getTemplateByCode,
  listTemplates,
  listVersions,
  localeRange,
} from '../../templates/index.js';
import { decisionColumns } from '../exports/columns.js';
import { allows, auditBy, tenantOf } from '../web/context.js';
import { sendCsv } from '../web/csv.js';
import { dayRange, keysetPosition } from '../web/filters.js';
import { type FieldErrors, parseForm, queryOf } from '../web/forms.js';
import { csrfToken, redirectTo, sectionPage } from '../web/layout.js';
import { DecisionFilterForm, decisionFilterOptions } from './schemas.js';
import { type DecisionFilterValues, decisionPage, decisionsPage } from './views.js';

const validId = new RegExp(uuidPattern);

/**
 * The Decisions list: every customer's decisions, filtered by product, template, version,
 * decision, API key, locale, customer id and days (in the tenant's time zone), newest first, a page at a time; each
 * opens its evidence. The filtered list downloads as CSV (oldest first, streamed like the export).
 */
export async function decisionRoutes(
  app: FastifyInstance,
  {
    db,
    readOn,
    vault,
    partnerBlocks,
  }: { db: Db; readOn: ReadOn; vault: SubjectVault; partnerBlocks: PartnerBlockWriter },
) {
  const page = sectionPage('decisions', {
    'partner-blocked':
      'The partner is blocked on this decision. The change is in the decision log.',
    'partner-allowed':
      'The partner is allowed again on this decision. The change is in the decision log.',
    'partner-unchanged': 'The partner already had that state: nothing was recorded.',
  });

  /** The filter of the query string, or what is wrong with it (as the form shows it). */
  const filterOf = async (request: FastifyRequest) => {
    const { tenantId, timeZone } = tenantOf(request);
    const form = parseForm(DecisionFilterForm, request.query, decisionFilterOptions);
    const values: DecisionFilterValues = {
      product: '',
      template: '',
      version: '',
      decision: '',
      key: '',
      locale: '',
      customer: '',
      from: '',
      to: '',
      ...form.input,
    };
    const [products, templates, keys] = await Promise.all([
      listProducts(db, tenantId),
      listTemplates(db, tenantId),
      listApiKeys(db, tenantId),
    ]);
    const choices = { products, templates, keys };
    const days = dayRange(values, timeZone);
    const fieldErrors: FieldErrors = {
      ...('errors' in days ? days.errors : {}),
      ...(form.ok ? {} : form.refusal.fields),
    };
    const errors: string[] = form.ok ? [] : [...form.refusal.form];
    const product = products.find((p) => p.code === values.product);
    if (values.product && !product) errors.push('There is no such product.');
    const template = templates.find((t) => t.code === values.template);
    if (values.template && !template) errors.push('There is no such template.');
    if (values.version && !values.template) fieldErrors.version = 'Choose a template too.';
    const key = keys.find((k) => k.id === values.key);
    if (values.key && !key) errors.push('There is no such API key.');
    const locale = values.locale === '' ? undefined : canonicalLocale(values.locale);
    if (values.locale && !locale) {
      fieldErrors.locale = 'A BCP 47 language tag, such as th or en-GB, or nothing.';
    }
    let versionId: string | undefined;
    if (template && values.version && !fieldErrors.version) {
      const versions = await listVersions(db, await getTemplateByCode(db, tenantId, template.code));
      versionId = versions.find((v) => v.version === Number(values.version))?.id;
      if (!versionId) fieldErrors.version = 'This template has no such version.';
    }
    if ('errors' in days || errors.length > 0 || Object.keys(fieldErrors).length > 0) {
      return { values, choices, refusal: { errors, fieldErrors } } as const;
    }
    const filter: DecisionFilter = {
      productId: product?.id,
      templateId: template?.id,
      versionId,
      // The form's schema lets through only the three values, or nothing.
      decision: values.decision === '' ? undefined : (values.decision as DecisionValue),
      apiKeyId: key?.id,
      // Matched as the API chooses a text: `th` finds th-TH, and th-TH finds th.
      locale: locale === undefined ? undefined : localeRange(locale),
      customerId: values.customer === '' ? undefined : values.customer,
      ...days,
    };
    return { values, choices, filter } as const;
  };

  type Parsed = Awaited<ReturnType<typeof filterOf>>;

  /** The list's page: a page of decisions, or the filter's form with what is wrong (400). */
  const show = (
    request: FastifyRequest,
    reply: FastifyReply,
    parsed: Parsed,
    found?: { decisions: LoggedDecisionRecord[]; next: DecisionsPage['next']; first: boolean },
  ) => {
    const user = tenantOf(request);
    const body = decisionsPage({
      decisions: found?.decisions ?? [],
      next: found?.next,
      first: found?.first ?? true,
      values: parsed.values,
      ...parsed.choices,
      errors: parsed.refusal?.errors ?? [],
      fieldErrors: parsed.refusal?.fieldErrors ?? {},
      zone: user.timeZone,
      mayDownload: user.permissions.has('exports:export'),
    });
    return page(request, reply, 'Decisions', body, parsed.refusal ? 400 : 200);
  };

  app.get('/decisions', { config: { permission: 'customers:view' } }, async (request, reply) => {
    const { tenantId } = tenantOf(request);
    const parsed = await filterOf(request);
    if (parsed.refusal) return show(request, reply, parsed);
    const position = keysetPosition(queryOf(request.query, 'before'));
    const before = position && { decidedAt: position.at, id: position.id };
    const { decisions, next } = await browseDecisions(
      db,
      readOn,
      vault,
      tenantId,
      parsed.filter,
      before,
      parsed.values,
      auditBy(request),
    );
    return show(request, reply, parsed, { decisions, next, first: before === undefined });
  });

  app.get(
    '/decisions.csv',
    { config: { permission: 'exports:export' } },
    async (request, reply) => {
      const user = tenantOf(request);
      const parsed = await filterOf(request);
      if (parsed.refusal) return show(request, reply, parsed);
      const records = await exportDecisionRecords(
        db,
        readOn,
        vault,
        user.tenantId,
        parsed.filter,
        { ...parsed.values, timeZone: user.timeZone },
        auditBy(request),
      );
      return sendCsv(
        reply,
        `decisions-${user.tenantAlias}.csv`,
        decisionColumns(user.timeZone),
        records,
      );
    },
  );

  app.get<{ Params: { id: string } }>(
    '/decisions/:id',
    { config: { permission: 'customers:view' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const id = request.params.id.toLowerCase();
      if (!validId.test(id)) return reply.callNotFound();
      const evidence = await db
        .transaction()
        .execute((trx) => decisionEvidence(trx, vault, tenantId, id, auditBy(request)));
      if (!evidence) return reply.callNotFound();
      const { partners, inForce } = await listDecisionPartners(db, tenantId, id);
      const mayEdit = allows(request.backofficeUser, 'consent_decisions:edit');
      return page(
        request,
        reply,
        'Decision',
        decisionPage(evidence, tenantOf(request).timeZone, {
          partners,
          inForce,
          csrfToken: mayEdit ? csrfToken(reply) : undefined,
        }),
      );
    },
  );

  // A user blocks or allows a partner on the decision at the customer's request: recorded as an
  // API key's change would be, with the user as its evidence, and in the audit log.
  app.post<{ Params: { id: string; code: string }; Body: { blocked?: string } }>(
    '/decisions/:id/partners/:code',
    { config: { permission: 'consent_decisions:edit' } },
    async (request, reply) => {
      const user = tenantOf(request);
      const id = request.params.id.toLowerCase();
      const blocked = request.body?.blocked;
      if (!validId.test(id) || (blocked !== '1' && blocked !== '0')) return reply.callNotFound();
      const audit = auditBy(request);
      const outcome = await setPartnerBlockByUser(
        db,
        partnerBlocks,
        vault,
        {
          tenantId: user.tenantId,
          apiKeyId: null,
          userId: user.userId,
          ip: audit.ip,
          userAgent: audit.userAgent,
        },
        audit,
        { decisionId: id, partnerCode: request.params.code },
        blocked === '1',
      );
      const notice =
        outcome.kind === 'unchanged'
          ? 'partner-unchanged'
          : blocked === '1'
            ? 'partner-blocked'
            : 'partner-allowed';
      return redirectTo(reply, `/decisions/${id}?notice=${notice}#partners`);
    },
  );
}
