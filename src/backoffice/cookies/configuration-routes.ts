import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  type CookieConfiguration,
  createConfiguration,
  listConfigurations,
  listSystems,
  standardCategories,
} from '../../cookies/index.js';
import type { Db } from '../../platform/db.js';
import { nowIso } from '../../platform/time.js';
import { tenantOf } from '../web/context.js';
import { type FieldErrors, parseForm, queryOf, refusalOf } from '../web/forms.js';
import { csrfToken, redirectTo } from '../web/layout.js';
import { dayIn } from '../web/time-zone.js';
import { showConfigurationPage } from './configuration-page.js';
import { configurationList, newConfigurationForm } from './configuration-views.js';
import { configurationPath } from './paths.js';
import { NewConfigurationForm, newConfigurationFormOptions } from './schemas.js';
import { cookiesPage, editorOf } from './section.js';

type Values = { system: string; name: string; effective_date: string; categories: string[] };

/** The configurations: the list (searched by name or system), a new one, a configuration's page. */
export async function configurationRoutes(
  app: FastifyInstance,
  { db, publicBaseUrl }: { db: Db; publicBaseUrl: string },
) {
  const showNew = async (
    request: FastifyRequest,
    reply: FastifyReply,
    values: Values,
    refusal: { errors: string[]; fieldErrors: FieldErrors } = { errors: [], fieldErrors: {} },
    status = 200,
  ) => {
    const systems = await listSystems(db, tenantOf(request).tenantId);
    const body = newConfigurationForm({
      csrfToken: csrfToken(reply),
      systems,
      values,
      ...refusal,
    });
    return cookiesPage(request, reply, 'New configuration', body, status);
  };

  app.get('/cookies', { config: { permission: 'cookies:view' } }, async (request, reply) => {
    const { tenantId, timeZone, permissions } = tenantOf(request);
    const search = queryOf(request.query, 'q').trim().slice(0, 200);
    const [configurations, systems] = await Promise.all([
      listConfigurations(db, tenantId),
      listSystems(db, tenantId),
    ]);
    const names = new Map(systems.map((s) => [s.scope, s.name]));
    const wanted = search.toLowerCase();
    const items = configurations
      .map((configuration: CookieConfiguration) => ({
        configuration,
        systemName: names.get(configuration.system) ?? configuration.system,
      }))
      .filter(
        ({ configuration, systemName }) =>
          wanted === '' ||
          configuration.name.toLowerCase().includes(wanted) ||
          systemName.toLowerCase().includes(wanted),
      );
    const body = configurationList({
      items,
      search,
      zone: timeZone,
      mayCreate: permissions.has('cookies:create'),
      hasSystems: systems.length > 0,
    });
    return cookiesPage(request, reply, 'Cookies', body);
  });

  app.get(
    '/cookies/configurations/new',
    { config: { permission: 'cookies:create' } },
    (request, reply) =>
      showNew(request, reply, {
        system: queryOf(request.query, 'system'),
        name: '',
        effective_date: dayIn(nowIso(), tenantOf(request).timeZone),
        categories: [...standardCategories],
      }),
  );

  app.post(
    '/cookies/configurations',
    { config: { permission: 'cookies:create' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const form = parseForm(NewConfigurationForm, request.body, newConfigurationFormOptions);
      const values: Values = {
        system: form.input.system ?? '',
        name: form.input.name ?? '',
        effective_date: form.input.effective_date ?? '',
        categories: form.ok ? [...form.values.categories] : [],
      };
      if (!form.ok) {
        const refusal = { errors: form.refusal.form, fieldErrors: form.refusal.fields };
        return showNew(request, reply, values, refusal, 400);
      }
      const systems = await listSystems(db, tenantId);
      if (!systems.some((s) => s.scope === form.values.system)) {
        const refusal = { errors: [], fieldErrors: { system: 'Choose a system of the list.' } };
        return showNew(request, reply, values, refusal, 400);
      }
      let made: CookieConfiguration;
      try {
        made = await db.transaction().execute((trx) =>
          createConfiguration(
            trx,
            tenantId,
            {
              system: form.values.system,
              name: form.values.name,
              effective_date: form.values.effective_date,
              categories: form.values.categories,
            },
            editorOf(request),
          ),
        );
      } catch (error) {
        const refusal = refusalOf(error, newConfigurationFormOptions.messages);
        if (!refusal) throw error;
        return showNew(
          request,
          reply,
          values,
          { errors: refusal.form, fieldErrors: refusal.fields },
          400,
        );
      }
      return redirectTo(reply, `${configurationPath(made.id)}?notice=created`);
    },
  );

  app.get<{ Params: { id: string } }>(
    '/cookies/configurations/:id',
    { config: { permission: 'cookies:view' } },
    (request, reply) =>
      showConfigurationPage(db, request, reply, { id: request.params.id, publicBaseUrl }),
  );
}
