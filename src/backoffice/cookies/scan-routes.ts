import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  getScan,
  getScanSchedule,
  type ScanRunner,
  scanHistory,
  setScanSchedule,
} from '../../cookie-scanner/index.js';
import { getSystem } from '../../cookies/index.js';
import type { Db } from '../../platform/db.js';
import { AppError } from '../../platform/errors.js';
import { uuidPattern } from '../../platform/ids.js';
import { auditBy, tenantOf } from '../web/context.js';
import { type FieldErrors, parseForm, refusalOf } from '../web/forms.js';
import { csrfToken, redirectTo } from '../web/layout.js';
import { scanPath, scansPath } from './paths.js';
import { scanPage, scansPage } from './scan-views.js';
import { ScanForm, ScheduleForm, scanFormOptions, scheduleFormOptions } from './schemas.js';
import { cookiesPage } from './section.js';

type Params = { scope: string };
type ScanParams = { scope: string; id: string };

const scanId = new RegExp(uuidPattern);

/**
 * A system's scans (docs/cookie-scans.md): the history with "Scan now" and the schedule, and
 * each scan's page. A scan started here runs in the background on this instance (`runner`).
 */
export async function scanRoutes(
  app: FastifyInstance,
  { db, runner }: { db: Db; runner: ScanRunner },
) {
  const showScans = async (
    request: FastifyRequest,
    reply: FastifyReply,
    scope: string,
    form?: {
      values: { pages: string; every_days: string; schedule_pages: string };
      errors: string[];
      fieldErrors: FieldErrors;
    },
  ) => {
    const { tenantId, permissions, timeZone } = tenantOf(request);
    const system = await getSystem(db, tenantId, scope);
    const schedule = await getScanSchedule(db, tenantId, scope);
    const body = scansPage({
      system,
      scans: await scanHistory(db, tenantId, scope),
      schedule,
      zone: timeZone,
      forms: permissions.has('cookies:edit')
        ? {
            csrfToken: csrfToken(reply),
            errors: form?.errors ?? [],
            fieldErrors: form?.fieldErrors ?? {},
            values: form?.values ?? {
              pages: '10',
              every_days: schedule ? String(schedule.every_days) : '',
              schedule_pages: String(schedule?.pages ?? 10),
            },
          }
        : undefined,
    });
    return cookiesPage(request, reply, `Scans of ${system.name}`, body, form ? 400 : 200);
  };

  app.get<{ Params: Params }>(
    '/cookies/systems/:scope/scans',
    { config: { permission: 'cookies:view' } },
    (request, reply) => showScans(request, reply, request.params.scope),
  );

  app.post<{ Params: Params }>(
    '/cookies/systems/:scope/scans',
    { config: { permission: 'cookies:edit' } },
    async (request, reply) => {
      const { tenantId, userId } = tenantOf(request);
      const { scope } = request.params;
      const form = parseForm(ScanForm, request.body, scanFormOptions);
      const values = { pages: form.input.pages ?? '', every_days: '', schedule_pages: '10' };
      if (!form.ok) {
        return showScans(request, reply, scope, {
          values,
          errors: form.refusal.form,
          fieldErrors: form.refusal.fields,
        });
      }
      let id: string;
      try {
        id = await runner.start({
          tenantId,
          system: scope,
          pages: form.values.pages,
          trigger: 'back-office',
          actor: userId,
          auditedAs: auditBy(request),
        });
      } catch (error) {
        const refusal = refusalOf(error, scanFormOptions.messages as Record<string, string>);
        if (!refusal) throw error;
        return showScans(request, reply, scope, {
          values,
          errors: refusal.form,
          fieldErrors: refusal.fields,
        });
      }
      return redirectTo(reply, scanPath(scope, id));
    },
  );

  app.post<{ Params: Params }>(
    '/cookies/systems/:scope/scans/schedule',
    { config: { permission: 'cookies:edit' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const { scope } = request.params;
      const form = parseForm(ScheduleForm, request.body, scheduleFormOptions);
      const values = {
        pages: '10',
        every_days: form.input.every_days ?? '',
        schedule_pages: form.input.schedule_pages ?? '',
      };
      if (!form.ok) {
        return showScans(request, reply, scope, {
          values,
          errors: form.refusal.form,
          fieldErrors: form.refusal.fields,
        });
      }
      const every = form.values.every_days === '' ? null : Number(form.values.every_days);
      await setScanSchedule(db, auditBy(request), tenantId, scope, {
        every_days: every,
        pages: form.values.schedule_pages,
      });
      return redirectTo(
        reply,
        `${scansPath(scope)}?notice=${every === null ? 'schedule_off' : 'schedule_set'}`,
      );
    },
  );

  app.get<{ Params: ScanParams }>(
    '/cookies/systems/:scope/scans/:id',
    { config: { permission: 'cookies:view' } },
    async (request, reply) => {
      const { tenantId, timeZone } = tenantOf(request);
      const { scope, id } = request.params;
      if (!scanId.test(id)) throw new AppError('notFound', { message: 'No such scan.' });
      const system = await getSystem(db, tenantId, scope);
      const scan = await getScan(db, tenantId, scope, id);
      return cookiesPage(
        request,
        reply,
        `Scan of ${system.name}`,
        scanPage({ system, scan, zone: timeZone }),
      );
    },
  );
}
