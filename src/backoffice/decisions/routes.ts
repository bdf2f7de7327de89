import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { listApiKeys } from '../../api-keys/service.js';
import type { DecisionValue } from '../../decisions/table.js';
import type { Db } from '../../platform/db.js';
import { listProducts } from '../../products/service.js';
import { browseDecisions, decisionEvidence } from '../../records/browse.js';
import { type DecisionFilter, exportDecisionRecords } from '../../records/history.js';
import type { SubjectVault } from '../../subjects/vault.js';
import { getTemplateByCode, listTemplates, listVersions } from '../../templates/service.js';
import { decisionColumns } from '../exports/columns.js';
import { auditBy, tenantOf } from '../web/context.js';
import { sendCsv } from '../web/csv.js';
import { type FieldErrors, parseForm, queryOf } from '../web/forms.js';
import { sectionPage } from '../web/layout.js';
import { isCalendarDay, startOfDayIn } from '../web/time-zone.js';
import { DecisionFilterForm, decisionFilterOptions } from './schemas.js';
import { type DecisionFilterValues, decisionPage, decisionsPage } from './views.js';

const validId = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function cursorOf(value: string) {
  const match = /^(\d{4}-\d{2}-\d{2}T[\d:.]+Z)~([0-9a-f-]{36})$/.exec(value);
  return match?.[1] && match[2] ? { decidedAt: match[1], id: match[2] } : undefined;
}

/**
 * The Decisions list: every customer's decisions, filtered by product, template, version,
 * decision, API key and days (in the tenant's time zone), newest first, a page at a time; each
 * opens its evidence. The filtered list downloads as CSV (oldest first, streamed like the export).
 */
export async function decisionRoutes(
  app: FastifyInstance,
  { db, vault }: { db: Db; vault: SubjectVault },
) {
  const page = sectionPage('decisions');

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
    const fieldErrors: FieldErrors = form.ok ? {} : { ...form.refusal.fields };
    const errors: string[] = form.ok ? [] : [...form.refusal.form];
    for (const name of ['from', 'to'] as const) {
      if (values[name] && !fieldErrors[name] && !isCalendarDay(values[name])) {
        fieldErrors[name] = 'A day of the calendar, or nothing.';
      }
    }
    if (
      !fieldErrors.from &&
      !fieldErrors.to &&
      values.from &&
      values.to &&
      values.to < values.from
    ) {
      fieldErrors.to = 'The last day comes on or after the first.';
    }
    const product = products.find((p) => p.code === values.product);
    if (values.product && !product) errors.push('There is no such product.');
    const template = templates.find((t) => t.code === values.template);
    if (values.template && !template) errors.push('There is no such template.');
    if (values.version && !values.template) fieldErrors.version = 'Choose a template too.';
    const key = keys.find((k) => k.id === values.key);
    if (values.key && !key) errors.push('There is no such API key.');
    let versionId: string | undefined;
    if (template && values.version && !fieldErrors.version) {
      const versions = await listVersions(db, await getTemplateByCode(db, tenantId, template.code));
      versionId = versions.find((v) => v.version === Number(values.version))?.id;
      if (!versionId) fieldErrors.version = 'This template has no such version.';
    }
    if (errors.length > 0 || Object.keys(fieldErrors).length > 0) {
      return { values, choices, refusal: { errors, fieldErrors } } as const;
    }
    const filter: DecisionFilter = {
      productId: product?.id,
      templateId: template?.id,
      versionId,
      // The form's schema lets through only the three values, or nothing.
      decision: values.decision === '' ? undefined : (values.decision as DecisionValue),
      apiKeyId: key?.id,
      from: values.from ? startOfDayIn(values.from, timeZone) : undefined,
      until: values.to ? startOfDayIn(values.to, timeZone, 1) : undefined,
    };
    return { values, choices, filter } as const;
  };

  const show = (
    request: FastifyRequest,
    reply: FastifyReply,
    o: Omit<
      Parameters<typeof decisionsPage>[0],
      'zone' | 'mayDownload' | 'products' | 'templates' | 'keys'
    > & {
      choices: Pick<Parameters<typeof decisionsPage>[0], 'products' | 'templates' | 'keys'>;
    },
    status = 200,
  ) => {
    const user = tenantOf(request);
    const { choices, ...rest } = o;
    return page(
      request,
      reply,
      'Decisions',
      decisionsPage({
        ...rest,
        ...choices,
        zone: user.timeZone,
        mayDownload: user.permissions.has('exports:export'),
      }),
      status,
    );
  };

  app.get('/decisions', { config: { permission: 'customers:view' } }, async (request, reply) => {
    const { tenantId } = tenantOf(request);
    const parsed = await filterOf(request);
    if (parsed.refusal) {
      return show(
        request,
        reply,
        {
          decisions: [],
          next: undefined,
          first: true,
          values: parsed.values,
          choices: parsed.choices,
          ...parsed.refusal,
        },
        400,
      );
    }
    const before = cursorOf(queryOf(request.query, 'before'));
    const { decisions, next } = await browseDecisions(
      db,
      vault,
      tenantId,
      parsed.filter,
      before,
      parsed.values,
      auditBy(request),
    );
    return show(request, reply, {
      decisions,
      next,
      first: before === undefined,
      values: parsed.values,
      choices: parsed.choices,
      errors: [],
      fieldErrors: {},
    });
  });

  app.get(
    '/decisions.csv',
    { config: { permission: 'exports:export' } },
    async (request, reply) => {
      const user = tenantOf(request);
      const parsed = await filterOf(request);
      if (parsed.refusal) {
        return show(
          request,
          reply,
          {
            decisions: [],
            next: undefined,
            first: true,
            values: parsed.values,
            choices: parsed.choices,
            ...parsed.refusal,
          },
          400,
        );
      }
      const records = await exportDecisionRecords(
        db,
        vault,
        user.tenantId,
        parsed.filter,
        parsed.values,
        auditBy(request),
      );
      return sendCsv(reply, `decisions-${user.tenantAlias}.csv`, decisionColumns, records);
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
      return page(request, reply, 'Decision', decisionPage(evidence, tenantOf(request).timeZone));
    },
  );
}
