/** The tenant's single sign-on settings page (docs/team.md, "Single sign-on"). */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { listRoles, listTeam } from '../../accounts/index.js';
import type { Db } from '../../platform/db.js';
import { AppError } from '../../platform/errors.js';
import {
  type GroupRole,
  getSsoSettings,
  removeSsoSettings,
  type SecretBox,
  saveSsoSettings,
} from '../../sso/index.js';
import { auditBy, tenantOf } from '../web/context.js';
import { type FieldErrors, linesOf, parseForm } from '../web/forms.js';
import { basePath, csrfToken, redirectTo, sectionPage } from '../web/layout.js';
import { SsoForm, ssoFormOptions } from './schemas.js';
import { type SsoFormValues, ssoSettingsPage, ssoValues } from './settings-views.js';

const notices: Record<string, string> = {
  saved: 'Single sign-on saved.',
  removed: 'Single sign-on is off: everyone signs in with their password.',
};

export async function ssoSettingsRoutes(
  app: FastifyInstance,
  o: { db: Db; secrets: SecretBox; publicBaseUrl: string },
): Promise<void> {
  const { db } = o;
  const page = sectionPage('settings', notices);

  const show = async (
    request: FastifyRequest,
    reply: FastifyReply,
    values: SsoFormValues | undefined,
    status = 200,
    errors: string[] = [],
    fieldErrors: FieldErrors = {},
  ) => {
    const user = tenantOf(request);
    const settings = await getSsoSettings(db, o.secrets, user.tenantId);
    const roles = await listRoles(db, user.tenantId);
    const team = await listTeam(db, user.tenantId);
    const body = ssoSettingsPage({
      csrfToken: csrfToken(reply),
      alias: user.tenantAlias,
      redirectUri: `${o.publicBaseUrl}${basePath}/sso/callback`,
      signInUrl: `${o.publicBaseUrl}${basePath}/sso/${user.tenantAlias}`,
      configured: settings !== undefined,
      values: values ?? ssoValues(settings, roles),
      candidates: team.filter((m) => m.status === 'active' && m.twoFactor),
      errors,
      fieldErrors,
      mayEdit: user.permissions.has('settings:edit'),
    });
    return page(request, reply, 'Single sign-on', body, status);
  };

  app.get('/settings/sso', { config: { permission: 'settings:view' } }, (request, reply) =>
    show(request, reply, undefined),
  );

  app.post('/settings/sso', { config: { permission: 'settings:edit' } }, async (request, reply) => {
    const { tenantId } = tenantOf(request);
    const form = parseForm(SsoForm, request.body, ssoFormOptions);
    const { input } = form;
    const values: SsoFormValues = {
      issuer: input.issuer ?? '',
      client_id: input.client_id ?? '',
      email_claim: input.email_claim ?? '',
      groups_claim: input.groups_claim ?? '',
      group_roles: input.group_roles ?? '',
      create_users: input.create_users === 'true',
      required: input.required === 'true',
      break_glass_user_id: input.break_glass_user_id ?? '',
    };
    if (!form.ok) return show(request, reply, values, 400, form.refusal.form, form.refusal.fields);
    // A role is named as the page shows it; its id is what is kept.
    const roles = await listRoles(db, tenantId);
    const byName = new Map(roles.map((role) => [role.name.toLowerCase(), role.id]));
    const groupRoles: GroupRole[] = [];
    for (const line of linesOf(values.group_roles)) {
      const at = line.lastIndexOf('=');
      const role = byName.get(
        line
          .slice(at + 1)
          .trim()
          .toLowerCase(),
      );
      if (at <= 0 || role === undefined) {
        return show(request, reply, values, 400, [], {
          group_roles: `Each line is a group, =, then one of your roles (${roles.map((r) => r.name).join(', ')}): “${line}” is not.`,
        });
      }
      groupRoles.push({ group: line.slice(0, at).trim(), role });
    }
    try {
      await db.transaction().execute((trx) =>
        saveSsoSettings(trx, o.secrets, auditBy(request), tenantId, {
          issuer: values.issuer,
          clientId: values.client_id,
          clientSecret: input.client_secret ?? '',
          emailClaim: values.email_claim,
          groupsClaim: values.groups_claim,
          groupRoles,
          createUsers: values.create_users,
          required: values.required,
          breakGlassUserId: values.break_glass_user_id || null,
        }),
      );
    } catch (error) {
      if (!(error instanceof AppError) || error.kind !== 'invalidRequest') throw error;
      const fields: FieldErrors = {};
      for (const { field, issue } of error.details ?? []) fields[field] = `It ${issue}.`;
      return show(request, reply, values, 400, [], fields);
    }
    return redirectTo(reply, '/settings/sso?notice=saved');
  });

  app.post(
    '/settings/sso/remove',
    { config: { permission: 'settings:edit' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      await db.transaction().execute((trx) => removeSsoSettings(trx, auditBy(request), tenantId));
      return redirectTo(reply, '/settings/sso?notice=removed');
    },
  );
}
