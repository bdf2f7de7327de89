import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  browseCookieDecisions,
  type ChoiceMethod,
  type CookieDecisionFilter,
  type CookieDecisionListItem,
  cookieChoices,
  exportCookieDecisions,
  listConfigurations,
  listSystems,
} from '../../cookies/index.js';
import { receiptOf } from '../../decision-log/index.js';
import type { Db } from '../../platform/db.js';
import { uuidPattern } from '../../platform/ids.js';
import type { ReadOn } from '../../platform/replicas.js';
import type { Registry } from '../../record-kinds/index.js';
import type { SubjectVault } from '../../subjects/index.js';
import { auditBy, tenantOf } from '../web/context.js';
import { sendCsv } from '../web/csv.js';
import { dayRange, keysetPosition } from '../web/filters.js';
import { type FieldErrors, parseForm, queryOf } from '../web/forms.js';
import { cookieDecisionColumns } from './columns.js';
import {
  type CookieDecisionFilterValues,
  cookieDecisionsPage,
  cookieReceiptQueued,
} from './decision-views.js';
import { CookieDecisionFilterForm, cookieDecisionFilterOptions } from './schemas.js';
import { cookiesPage } from './section.js';

const validId = new RegExp(uuidPattern);

/**
 * Visitors' cookie decisions: filtered by system, configuration, category (granted or denied),
 * method, days (in the tenant's time zone, the one day rule), a visitor's id and a decision's id,
 * newest first, a page at a time; the filtered decisions as CSV (oldest first, streamed,
 * audited); and a decision's receipt to download.
 */
export async function cookieDecisionRoutes(
  app: FastifyInstance,
  {
    db,
    readOn,
    vault,
    registry,
  }: { db: Db; readOn: ReadOn; vault: SubjectVault; registry: Registry },
) {
  /** The filter of the query string, or what is wrong with it (as the form shows it). */
  const filterOf = async (request: FastifyRequest) => {
    const { tenantId, timeZone } = tenantOf(request);
    const form = parseForm(CookieDecisionFilterForm, request.query, cookieDecisionFilterOptions);
    const values: CookieDecisionFilterValues = {
      system: '',
      configuration: '',
      category: '',
      granted: '',
      method: '',
      from: '',
      to: '',
      visitor: '',
      decision: '',
      ...form.input,
    };
    const [systems, configurations] = await Promise.all([
      listSystems(db, tenantId),
      listConfigurations(db, tenantId),
    ]);
    const names = new Map(systems.map((s) => [s.scope, s.name]));
    const categories = [
      ...new Set(configurations.flatMap((c) => c.content.categories.map((k) => k.key))),
    ];
    const choices = {
      systems,
      configurations: configurations
        .filter((c) => c.published_at !== null)
        .map((c) => ({
          id: c.id,
          label: `${names.get(c.system) ?? c.system}: ${c.name} (version ${c.version})`,
        })),
      categories,
    };
    const days = dayRange(values, timeZone);
    const fieldErrors: FieldErrors = {
      ...('errors' in days ? days.errors : {}),
      ...(form.ok ? {} : form.refusal.fields),
    };
    const errors: string[] = form.ok ? [] : [...form.refusal.form];
    if (values.system && !names.has(values.system)) errors.push('There is no such system.');
    const configuration = configurations.find((c) => c.id === values.configuration);
    if (values.configuration && !configuration) errors.push('There is no such configuration.');
    if (values.category && !categories.includes(values.category)) {
      fieldErrors.category = 'A category of the list, or nothing.';
    }
    if (values.granted && !values.category) fieldErrors.granted = 'Choose a category too.';
    if ('errors' in days || errors.length > 0 || Object.keys(fieldErrors).length > 0) {
      return { values, choices, refusal: { errors, fieldErrors } } as const;
    }
    const filter: CookieDecisionFilter = {
      scope: values.system || undefined,
      configurationId: configuration?.id,
      category: values.category
        ? {
            key: values.category,
            granted: values.granted === '' ? undefined : values.granted === 'granted',
          }
        : undefined,
      // The form's schema lets through only the four methods, or nothing.
      method: values.method === '' ? undefined : (values.method as ChoiceMethod),
      visitorId: values.visitor || undefined,
      decisionId: values.decision || undefined,
      ...days,
    };
    return { values, choices, filter } as const;
  };

  type Parsed = Awaited<ReturnType<typeof filterOf>>;

  const show = (
    request: FastifyRequest,
    reply: FastifyReply,
    parsed: Parsed,
    found?: {
      decisions: CookieDecisionListItem[];
      next: { decidedAt: string; id: string } | undefined;
      first: boolean;
    },
  ) => {
    const user = tenantOf(request);
    const body = cookieDecisionsPage({
      decisions: found?.decisions ?? [],
      next: found?.next,
      first: found?.first ?? true,
      values: parsed.values,
      ...parsed.choices,
      errors: parsed.refusal?.errors ?? [],
      fieldErrors: parsed.refusal?.fieldErrors ?? {},
      zone: user.timeZone,
      mayDownload: user.permissions.has('cookies:export'),
      mayErase: user.permissions.has('customers:erase'),
    });
    return cookiesPage(request, reply, 'Cookie decisions', body, parsed.refusal ? 400 : 200);
  };

  app.get(
    '/cookies/decisions',
    { config: { permission: 'cookies:view' } },
    async (request, reply) => {
      const parsed = await filterOf(request);
      if (parsed.refusal) return show(request, reply, parsed);
      const position = keysetPosition(queryOf(request.query, 'before'));
      const before = position && { decidedAt: position.at, id: position.id };
      // Nothing recorded for looking (no personal field is shown): the whole page is a read.
      const page = await readOn((on) =>
        browseCookieDecisions(on, vault, tenantOf(request).tenantId, parsed.filter, before),
      );
      return show(request, reply, parsed, { ...page, first: before === undefined });
    },
  );

  app.get(
    '/cookies/decisions.csv',
    { config: { permission: 'cookies:export' } },
    async (request, reply) => {
      const user = tenantOf(request);
      const parsed = await filterOf(request);
      if (parsed.refusal) return show(request, reply, parsed);
      const { categories, decisions } = await exportCookieDecisions(
        db,
        readOn,
        vault,
        user.tenantId,
        parsed.filter,
        { ...parsed.values, time_zone: user.timeZone },
        auditBy(request),
      );
      return sendCsv(
        reply,
        `cookie-decisions-${user.tenantAlias}.csv`,
        cookieDecisionColumns(categories, user.timeZone),
        decisions,
      );
    },
  );

  // The receipt holds the visitor's id, address and user agent, as the download does: the same
  // permission, and the same file as the API's receipt (`{"data": …}`), which verify-receipt reads.
  app.get<{ Params: { id: string } }>(
    '/cookies/decisions/:id/receipt',
    { config: { permission: 'cookies:export' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const id = request.params.id.toLowerCase();
      if (!validId.test(id)) return reply.callNotFound();
      const result = await receiptOf(db, vault, registry, cookieChoices, tenantId, id);
      if (!result.ready) {
        return cookiesPage(request, reply, 'Receipt not ready yet', cookieReceiptQueued(id), 202);
      }
      return reply
        .header('content-disposition', `attachment; filename="cookie-receipt-${id}.json"`)
        .type('application/json; charset=utf-8')
        .send(`${JSON.stringify({ data: result.receipt }, null, 2)}\n`);
    },
  );
}
