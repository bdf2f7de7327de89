import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  type CookieSystem,
  changeSystem,
  createSystem,
  getConfiguration,
  listRefusedOrigins,
  listSystems,
  refusedOriginsKept,
  scriptTag,
} from '../../cookies/index.js';
import type { Db, Executor } from '../../platform/db.js';
import { AppError } from '../../platform/errors.js';
import { auditBy, tenantOf } from '../web/context.js';
import { type FieldErrors, linesOf, parseForm } from '../web/forms.js';
import { csrfToken, redirectTo } from '../web/layout.js';
import { systemPath } from './paths.js';
import { SystemForm, systemFormOptions } from './schemas.js';
import { cookiesPage } from './section.js';
import { newSystemForm, type SystemModel, systemList, systemPage } from './system-views.js';

type Params = { scope: string };

/** A system with the name and version of its published configuration. */
async function systemModel(
  db: Executor,
  tenantId: string,
  system: CookieSystem,
): Promise<SystemModel> {
  const id = system.published_configuration_id;
  const published = id ? await getConfiguration(db, tenantId, id) : undefined;
  return {
    ...system,
    published: published && {
      id: published.id,
      version: published.version,
      name: published.name,
    },
  };
}

/**
 * A service's refusal of a system's form: a bad origin is named by its line, a name taken by the
 * name's field; anything else above the form. Undefined for what is no refusal.
 */
function systemRefusal(error: unknown): { errors: string[]; fieldErrors: FieldErrors } | undefined {
  if (!(error instanceof AppError) || (error.status !== 400 && error.status !== 409)) {
    return undefined;
  }
  const fieldErrors: FieldErrors = {};
  const errors: string[] = [];
  for (const detail of error.details ?? []) {
    const line = /^origins\.(\d+)$/.exec(detail.field)?.[1];
    if (line !== undefined) fieldErrors.origins = `Line ${Number(line) + 1} ${detail.issue}.`;
    else if (detail.field === 'origins') fieldErrors.origins = `The origins ${detail.issue}.`;
    else if (detail.field === 'name') fieldErrors.name = `The name ${detail.issue}.`;
    else errors.push(`${detail.field}: ${detail.issue}`);
  }
  if (!error.details?.length) {
    if (error.status === 409) fieldErrors.name = error.message;
    else errors.push(error.message);
  }
  return { errors, fieldErrors };
}

/** The systems: their list, a new one, a system's page with its script tag and its form. */
export async function systemRoutes(
  app: FastifyInstance,
  {
    db,
    publicBaseUrl,
    flushRefusedOrigins,
  }: { db: Db; publicBaseUrl: string; flushRefusedOrigins: () => Promise<void> },
) {
  const showSystem = async (
    request: FastifyRequest,
    reply: FastifyReply,
    scope: string,
    form?: {
      values: { name: string; origins: string };
      errors: string[];
      fieldErrors: FieldErrors;
    },
  ) => {
    const { tenantId, permissions, timeZone } = tenantOf(request);
    const found = (await listSystems(db, tenantId)).find((s) => s.scope === scope);
    if (!found) throw new AppError('notFound', { message: 'No such system.' });
    const system = await systemModel(db, tenantId, found);
    // This instance's counts not yet added are added first; other instances' are at most the
    // seconds of their pass behind.
    await flushRefusedOrigins();
    const body = systemPage({
      system,
      refused: { origins: await listRefusedOrigins(db, tenantId, scope), kept: refusedOriginsKept },
      scriptTag: system.published ? scriptTag(publicBaseUrl, system.scope) : undefined,
      zone: timeZone,
      mayCreateConfiguration: permissions.has('cookies:create'),
      form: permissions.has('cookies:edit')
        ? {
            csrfToken: csrfToken(reply),
            values: form?.values ?? { name: system.name, origins: system.origins.join('\n') },
            errors: form?.errors ?? [],
            fieldErrors: form?.fieldErrors ?? {},
          }
        : undefined,
    });
    return cookiesPage(request, reply, system.name, body, form ? 400 : 200);
  };

  const showNew = (
    request: FastifyRequest,
    reply: FastifyReply,
    values = { name: '', origins: '' },
    refusal: { errors: string[]; fieldErrors: FieldErrors } = { errors: [], fieldErrors: {} },
    status = 200,
  ) =>
    cookiesPage(
      request,
      reply,
      'New cookie system',
      newSystemForm({ csrfToken: csrfToken(reply), values, ...refusal }),
      status,
    );

  app.get(
    '/cookies/systems',
    { config: { permission: 'cookies:view' } },
    async (request, reply) => {
      const { tenantId, permissions } = tenantOf(request);
      const systems = await listSystems(db, tenantId);
      const models = await Promise.all(systems.map((s) => systemModel(db, tenantId, s)));
      const body = systemList({ systems: models, mayCreate: permissions.has('cookies:create') });
      return cookiesPage(request, reply, 'Cookie systems', body);
    },
  );

  app.get('/cookies/systems/new', { config: { permission: 'cookies:create' } }, (request, reply) =>
    showNew(request, reply),
  );

  app.post(
    '/cookies/systems',
    { config: { permission: 'cookies:create' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const form = parseForm(SystemForm, request.body, systemFormOptions);
      const values = { name: form.input.name ?? '', origins: form.input.origins ?? '' };
      if (!form.ok) {
        const refusal = { errors: form.refusal.form, fieldErrors: form.refusal.fields };
        return showNew(request, reply, values, refusal, 400);
      }
      let made: CookieSystem;
      try {
        made = await db
          .transaction()
          .execute((trx) =>
            createSystem(
              trx,
              tenantId,
              { name: form.values.name, origins: linesOf(form.values.origins) },
              auditBy(request),
            ),
          );
      } catch (error) {
        const refusal = systemRefusal(error);
        if (!refusal) throw error;
        return showNew(request, reply, values, refusal, 400);
      }
      return redirectTo(reply, `${systemPath(made.scope)}?notice=system_created`);
    },
  );

  app.get<{ Params: Params }>(
    '/cookies/systems/:scope',
    { config: { permission: 'cookies:view' } },
    (request, reply) => showSystem(request, reply, request.params.scope),
  );

  app.post<{ Params: Params }>(
    '/cookies/systems/:scope',
    { config: { permission: 'cookies:edit' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const { scope } = request.params;
      const form = parseForm(SystemForm, request.body, systemFormOptions);
      const values = { name: form.input.name ?? '', origins: form.input.origins ?? '' };
      if (!form.ok) {
        return showSystem(request, reply, scope, {
          values,
          errors: form.refusal.form,
          fieldErrors: form.refusal.fields,
        });
      }
      try {
        await db
          .transaction()
          .execute((trx) =>
            changeSystem(
              trx,
              tenantId,
              scope,
              { name: form.values.name, origins: linesOf(form.values.origins) },
              auditBy(request),
            ),
          );
      } catch (error) {
        const refusal = systemRefusal(error);
        if (!refusal) throw error;
        return showSystem(request, reply, scope, { values, ...refusal });
      }
      return redirectTo(reply, `${systemPath(scope)}?notice=system_changed`);
    },
  );
}
