import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  getTeamMember,
  issuePasswordLink,
  listTeam,
  resetUserSecondFactor,
} from '../../accounts/index.js';
import type { Db } from '../../platform/db.js';
import { AppError } from '../../platform/errors.js';
import { getTenantById } from '../../tenants/index.js';
import { linkIssued } from '../users/views.js';
import { auditBy } from '../web/context.js';
import { refusalOf } from '../web/forms.js';
import { segment } from '../web/html.js';
import { csrfToken, redirectTo, sectionPage } from '../web/layout.js';
import { type LinkMailer, passwordLinkUrl, sendPasswordLink } from '../web/password-links.js';
import { tenantAdminsPage } from './recovery-views.js';

type Params = { id: string; userId: string };

const notices: Record<string, string> = {
  'two-factor-reset':
    'Second factor reset: the admin signs in with their password and sets it up again.',
};

/**
 * The operator's way back in for a tenant whose admins are locked out: a password link for one
 * of its admins (e-mailed, or shown once), or a reset of an admin's second factor.
 */
export async function tenantRecoveryRoutes(
  app: FastifyInstance,
  o: { db: Db; publicBaseUrl: string; mailer: LinkMailer | undefined },
) {
  const { db } = o;
  const page = sectionPage('tenants', notices);

  const show = async (
    request: FastifyRequest,
    reply: FastifyReply,
    errors: string[] = [],
    status = 200,
  ) => {
    const { id } = request.params as Params;
    const tenant = await getTenantById(db, id);
    const admins = (await listTeam(db, tenant.id)).filter((m) => m.roles.includes('admin'));
    return page(
      request,
      reply,
      tenant.alias,
      tenantAdminsPage({ tenant, admins, csrfToken: csrfToken(reply), errors }),
      status,
    );
  };

  app.get('/operator/tenants/:id', { config: { permission: 'operator' } }, (request, reply) =>
    show(request, reply),
  );

  /** The operator acts for a tenant's admins only: the rest of the team is the admins' to manage. */
  const adminOf = async (request: FastifyRequest) => {
    const { id, userId } = request.params as Params;
    const tenant = await getTenantById(db, id);
    const member = await getTeamMember(db, tenant.id, userId);
    if (!member.roles.includes('admin')) {
      throw new AppError('conflict', { message: "The operator acts only for a tenant's admins." });
    }
    return { tenant, member };
  };

  app.post<{ Params: Params }>(
    '/operator/tenants/:id/users/:userId/link',
    { config: { permission: 'operator' } },
    async (request, reply) => {
      const { tenant, member } = await adminOf(request);
      let issued: Awaited<ReturnType<typeof issuePasswordLink>>;
      try {
        issued = await db
          .transaction()
          .execute((trx) => issuePasswordLink(trx, auditBy(request), tenant.id, member.id));
      } catch (error) {
        const refusal = refusalOf(error, {});
        if (!refusal) throw error;
        return show(request, reply, refusal.form, 409);
      }
      const purpose = issued.user.status === 'invited' ? 'invitation' : 'password_reset';
      const link = passwordLinkUrl(o.publicBaseUrl, issued.token);
      const mailed = await sendPasswordLink(
        o.mailer,
        member,
        purpose,
        link,
        { name: 'The operator', email: '', tenantAlias: tenant.alias },
        request.log,
      );
      return page(
        request,
        reply,
        'Password link ready',
        linkIssued({ member, purpose, link: mailed ? undefined : link }),
      );
    },
  );

  app.post<{ Params: Params }>(
    '/operator/tenants/:id/users/:userId/two-factor-reset',
    { config: { permission: 'operator' } },
    async (request, reply) => {
      const { tenant, member } = await adminOf(request);
      try {
        await db
          .transaction()
          .execute((trx) => resetUserSecondFactor(trx, auditBy(request), tenant.id, member.id));
      } catch (error) {
        const refusal = refusalOf(error, {});
        if (!refusal) throw error;
        return show(request, reply, refusal.form, 409);
      }
      return redirectTo(reply, `/operator/tenants/${segment(tenant.id)}?notice=two-factor-reset`);
    },
  );
}
