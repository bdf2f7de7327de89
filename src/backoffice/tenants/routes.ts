import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  disableTenant,
  enableTenant,
  prepareTenantRegistration,
  refuseOperatorEmail,
  registerTenant,
} from '../../accounts/index.js';
import type { Db } from '../../platform/db.js';
import { getTenantById, listTenants, NewTenant } from '../../tenants/index.js';
import { auditBy } from '../web/context.js';
import { noRefusal, parseForm, type Refusal, refusalOf } from '../web/forms.js';
import { csrfToken, redirectTo, sectionPage } from '../web/layout.js';
import { newTenantFormOptions } from './schemas.js';
import { disableConfirmation, newTenantForm, tenantList } from './views.js';

const notices: Record<string, string> = {
  created: 'Tenant registered.',
  disabled: 'Tenant disabled: its users are signed out, and its keys refused within a second.',
  enabled: 'Tenant enabled again.',
};

/** The operator's pages: registering, disabling and enabling tenants. */
export async function tenantAdminRoutes(
  app: FastifyInstance,
  { db, passwordHashCost }: { db: Db; passwordHashCost: number },
) {
  const page = sectionPage('tenants', notices);

  app.get('/operator/tenants', { config: { permission: 'operator' } }, async (request, reply) =>
    page(request, reply, 'Tenants', tenantList(await listTenants(db), csrfToken(reply))),
  );

  const showForm = (
    request: FastifyRequest,
    reply: FastifyReply,
    values: { alias: string; email: string },
    refusal: Refusal = noRefusal,
    status = 200,
  ) =>
    page(
      request,
      reply,
      'Register a tenant',
      newTenantForm({
        csrfToken: csrfToken(reply),
        values,
        errors: refusal.form,
        fieldErrors: refusal.fields,
      }),
      status,
    );

  app.get('/operator/tenants/new', { config: { permission: 'operator' } }, (request, reply) =>
    showForm(request, reply, { alias: '', email: '' }),
  );

  app.post('/operator/tenants', { config: { permission: 'operator' } }, async (request, reply) => {
    const form = parseForm(NewTenant, request.body, newTenantFormOptions);
    const values = { alias: form.input.alias ?? '', email: form.input.email ?? '' };
    try {
      await refuseOperatorEmail(db, values.email);
      if (!form.ok) return showForm(request, reply, values, form.refusal, 400);
      const registration = await prepareTenantRegistration(form.values, passwordHashCost);
      await db.transaction().execute((trx) => registerTenant(trx, registration, auditBy(request)));
    } catch (error) {
      const refusal = refusalOf(error, newTenantFormOptions.messages);
      if (!refusal) throw error;
      return showForm(request, reply, values, refusal, 400);
    }
    return redirectTo(reply, '/operator/tenants?notice=created');
  });

  app.get<{ Params: { id: string } }>(
    '/operator/tenants/:id/disable',
    { config: { permission: 'operator' } },
    async (request, reply) => {
      const tenant = await getTenantById(db, request.params.id);
      if (tenant.disabled_at) return redirectTo(reply, '/operator/tenants');
      return page(
        request,
        reply,
        `Disable ${tenant.alias}`,
        disableConfirmation(tenant, csrfToken(reply)),
      );
    },
  );

  app.post<{ Params: { id: string } }>(
    '/operator/tenants/:id/disable',
    { config: { permission: 'operator' } },
    async (request, reply) => {
      await db
        .transaction()
        .execute((trx) => disableTenant(trx, request.params.id, auditBy(request)));
      return redirectTo(reply, '/operator/tenants?notice=disabled');
    },
  );

  app.post<{ Params: { id: string } }>(
    '/operator/tenants/:id/enable',
    { config: { permission: 'operator' } },
    async (request, reply) => {
      await db
        .transaction()
        .execute((trx) => enableTenant(trx, request.params.id, auditBy(request)));
      return redirectTo(reply, '/operator/tenants?notice=enabled');
    },
  );
}
