import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  type AnalyticsRow,
  analyticsPeriod,
  choiceAnalytics,
  getSystem,
} from '../../cookies/index.js';
import { addDays, dayIn } from '../../platform/calendar.js';
import type { Db } from '../../platform/db.js';
import { AppError } from '../../platform/errors.js';
import { nowIso } from '../../platform/time.js';
import { tenantOf } from '../web/context.js';
import { type CsvColumn, sendCsv } from '../web/csv.js';
import { analyticsPage } from './analytics-views.js';
import { cookiesPage } from './section.js';

type Params = { scope: string };
type Query = { from?: string; to?: string };

/**
 * A system's consent analytics (docs/cookies.md, "Consent analytics"): the page, with its chart
 * and tables, and the same rows as CSV, for a period of the tenant's days (the last 30 by
 * default).
 */
export async function analyticsRoutes(app: FastifyInstance, { db }: { db: Db }) {
  const periodOf = (request: FastifyRequest<{ Querystring: Query }>) => {
    const { timeZone } = tenantOf(request);
    const today = dayIn(nowIso(), timeZone);
    const from = String(request.query.from ?? '') || addDays(today, -29);
    const to = String(request.query.to ?? '') || today;
    return { from, to, zone: timeZone };
  };

  app.get<{ Params: Params; Querystring: Query }>(
    '/cookies/systems/:scope/analytics',
    { config: { permission: 'cookies:view' } },
    async (request, reply: FastifyReply) => {
      const { tenantId } = tenantOf(request);
      const period = periodOf(request);
      try {
        analyticsPeriod(period.from, period.to);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        // A period that is none: the page again, with the form and what is wrong with it.
        const system = await getSystem(db, tenantId, request.params.scope);
        const body = analyticsPage({
          period,
          system,
          errors: (error.details ?? []).map(
            (d) => `The ${d.field === 'from' ? 'first' : 'last'} day ${d.issue}.`,
          ),
        });
        return cookiesPage(request, reply, `Analytics of ${system.name}`, body, 400);
      }
      const analytics = await choiceAnalytics(db, tenantId, request.params.scope, period);
      const body = analyticsPage({ period, system: analytics.system, analytics, errors: [] });
      return cookiesPage(request, reply, `Analytics of ${analytics.system.name}`, body);
    },
  );

  app.get<{ Params: Params; Querystring: Query }>(
    '/cookies/systems/:scope/analytics.csv',
    { config: { permission: 'cookies:view' } },
    async (request, reply) => {
      const { tenantId, tenantAlias } = tenantOf(request);
      const period = periodOf(request);
      const analytics = await choiceAnalytics(db, tenantId, request.params.scope, period);
      const columns: CsvColumn<AnalyticsRow>[] = [
        ['day', (r) => r.day],
        ['region', (r) => r.region],
        ['variant', (r) => r.variant],
        ['choices', (r) => r.choices],
        ['accept_all', (r) => r.methods['accept-all']],
        ['reject_all', (r) => r.methods['reject-all']],
        ['custom', (r) => r.methods.custom],
        ['gpc', (r) => r.methods.gpc],
        ...analytics.categories.flatMap((key): CsvColumn<AnalyticsRow>[] => [
          [`${key}_offered`, (r) => r.categories[key]?.offered ?? 0],
          [`${key}_granted`, (r) => r.categories[key]?.granted ?? 0],
        ]),
        ['time_zone', () => period.zone],
      ];
      async function* rows() {
        yield* analytics.rows;
      }
      return sendCsv(
        reply,
        `cookie-analytics-${tenantAlias}-${analytics.system.scope}-${period.from}-${period.to}.csv`,
        columns,
        rows(),
      );
    },
  );
}
