import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { changeSettings } from '../../accounts/index.js';
import type { Db } from '../../platform/db.js';
import { getTenantSettings, type TenantSettings } from '../../tenants/index.js';
import { auditBy, tenantOf } from '../web/context.js';
import { type FieldErrors, formErrors, parseForm } from '../web/forms.js';
import { csrfToken, redirectTo, sectionPage } from '../web/layout.js';
import { chosenZone } from '../web/time-zone.js';
import { SettingsForm, settingsFormOptions } from './schemas.js';
import { settingsForm } from './views.js';

const notices: Record<string, string> = { saved: 'Settings saved.' };

/**
 * The tenant's settings: the time zone its back-office shows dates in, two-factor sign-in, four
 * eyes on versions, and how a visitor's cookie choice keeps their address.
 */
export async function settingsRoutes(app: FastifyInstance, { db }: { db: Db }) {
  const page = sectionPage('settings', notices);

  const show = (
    request: FastifyRequest,
    reply: FastifyReply,
    settings: TenantSettings,
    errors: string[] = [],
    status = 200,
    fieldErrors: FieldErrors = {},
  ) => {
    const user = tenantOf(request);
    const body = settingsForm({
      csrfToken: csrfToken(reply),
      settings,
      errors: formErrors(errors),
      fieldErrors,
      mayEdit: user.permissions.has('settings:edit'),
      mayViewUsers: user.permissions.has('users:view'),
    });
    return page(request, reply, 'Settings', body, status);
  };

  app.get('/settings', { config: { permission: 'settings:view' } }, async (request, reply) =>
    show(request, reply, await getTenantSettings(db, tenantOf(request).tenantId)),
  );

  app.post('/settings', { config: { permission: 'settings:edit' } }, async (request, reply) => {
    const { tenantId } = tenantOf(request);
    const current = await getTenantSettings(db, tenantId);
    const form = parseForm(SettingsForm, request.body, settingsFormOptions);
    const { input } = form;
    const timeZone = chosenZone(input.time_zone ?? '');
    const twoFactorRequired = input.two_factor_required === 'true';
    const fourEyes = input.four_eyes === 'true';
    const distinctApprover = input.distinct_approver === 'true';
    const next = {
      ...current,
      timeZone: timeZone ?? '',
      twoFactorRequired,
      fourEyes,
      distinctApprover,
      ...(form.ok && form.values.cookie_address !== ''
        ? { cookieAddress: form.values.cookie_address }
        : {}),
    };
    if (timeZone === undefined || !form.ok) {
      const errors = timeZone === undefined ? ['Choose a time zone of the list.'] : [];
      const fields = form.ok ? {} : form.refusal.fields;
      return show(request, reply, next, errors, 400, fields);
    }
    await db.transaction().execute((trx) => changeSettings(trx, auditBy(request), tenantId, next));
    return redirectTo(reply, '/settings?notice=saved');
  });
}
