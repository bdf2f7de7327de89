import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  disableTenant,
  enableTenant,
  refuseOperatorEmail,
  registerTenant,
  TenantInvitation,
} from '../../accounts/index.js';
import type { Db } from '../../platform/db.js';
import { getTenantById, listTenants } from '../../tenants/index.js';
import { linkIssued } from '../users/views.js';
import { auditBy, signedInUser } from '../web/context.js';
import { noRefusal, parseForm, type Refusal, refusalOf } from '../web/forms.js';
import { csrfToken, redirectTo, sectionPage } from '../web/layout.js';
import { type LinkMailer, passwordLinkUrl, sendPasswordLink } from '../web/password-links.js';
import { newTenantFormOptions } from './schemas.js';
import { disableConfirmation, newTenantForm, tenantList } from './views.js';

const notices: Record<string, string> = {
  disabled: 'Tenant disabled: its users are signed out, and its keys refused within a second.',
  enabled: 'Tenant enabled again.',
};

export interface TenantAdminOptions {
  db: Db;
  publicBaseUrl: string;
  /** Sends the first admin's invitation; without it, the operator is shown the link once. */
  mailer: LinkMailer | undefined;
}

/** The operator's pages: registering (with the first admin invited), disabling, enabling. */
export async function tenantAdminRoutes(
  app: FastifyInstance,
  { db, publicBaseUrl, mailer }: TenantAdminOptions,
) {
  const page = sectionPage('tenants', notices);

  app.get('/operator/tenants', { config: { permission: 'operator' } }, async (request, reply) =>
    page(request, reply, 'Tenants', tenantList(await listTenants(db), csrfToken(reply))),
  );

  const showForm = (
    request: FastifyRequest,
    reply: FastifyReply,
    values: { alias: string; name: string; email: string },
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
        mailed: mailer !== undefined,
      }),
      status,
    );

  app.get('/operator/tenants/new', { config: { permission: 'operator' } }, (request, reply) =>
    showForm(request, reply, { alias: '', name: '', email: '' }),
  );

  app.post('/operator/tenants', { config: { permission: 'operator' } }, async (request, reply) => {
    const form = parseForm(TenantInvitation, request.body, newTenantFormOptions);
    const values = {
      alias: form.input.alias ?? '',
      name: form.input.name ?? '',
      email: form.input.email ?? '',
    };
    let registered: Awaited<ReturnType<typeof registerTenant>>;
    try {
      await refuseOperatorEmail(db, values.email);
      if (!form.ok) return showForm(request, reply, values, form.refusal, 400);
      const fields = form.values;
      registered = await db
        .transaction()
        .execute((trx) => registerTenant(trx, fields, auditBy(request)));
    } catch (error) {
      const refusal = refusalOf(error, newTenantFormOptions.messages);
      if (!refusal) throw error;
      return showForm(request, reply, values, refusal, 400);
    }
    // The invitation is the one a team member gets: e-mailed when it can be, else shown once.
    const { tenant, admin, token } = registered;
    const link = passwordLinkUrl(publicBaseUrl, token);
    const operator = signedInUser(request);
    const mailed = await sendPasswordLink(
      mailer,
      admin,
      'invitation',
      link,
      { name: operator.name, email: operator.email, tenantAlias: tenant.alias },
      request.log,
    );
    const body = linkIssued({
      member: admin,
      purpose: 'invitation',
      link: mailed ? undefined : link,
      back: '/operator/tenants',
    });
    return page(request, reply, 'Tenant registered', body, 200, 'Tenant registered.');
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
