import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { listOverrides, removeOverride, setOverride } from '../../cookie-scanner/index.js';
import type { Db } from '../../platform/db.js';
import { AppError } from '../../platform/errors.js';
import { auditBy, tenantOf } from '../web/context.js';
import { type FieldErrors, parseForm, refusalOf } from '../web/forms.js';
import { csrfToken, redirectTo } from '../web/layout.js';
import { classificationPage } from './override-views.js';
import { classificationPath } from './paths.js';
import { OverrideForm, overrideFormOptions, RemoveOverrideForm } from './schemas.js';
import { cookiesPage } from './section.js';

/**
 * The tenant's own classification of cookies and hosts (docs/cookie-scans.md, "The tenant's
 * overrides"): listed for whoever sees the cookie pages, set and removed by their editors.
 */
export async function overrideRoutes(app: FastifyInstance, { db }: { db: Db }) {
  const show = async (
    request: FastifyRequest,
    reply: FastifyReply,
    form?: { values: Record<string, string>; errors: string[]; fieldErrors: FieldErrors },
  ) => {
    const { tenantId, permissions, timeZone } = tenantOf(request);
    const body = classificationPage({
      overrides: await listOverrides(db, tenantId),
      zone: timeZone,
      ...(permissions.has('cookies:edit')
        ? {
            form: {
              csrfToken: csrfToken(reply),
              values: form?.values ?? {},
              errors: form?.errors ?? [],
              fieldErrors: form?.fieldErrors ?? {},
            },
          }
        : {}),
    });
    return cookiesPage(request, reply, 'Cookie classification', body, form ? 400 : 200);
  };

  app.get('/cookies/classification', { config: { permission: 'cookies:view' } }, show);

  app.post(
    '/cookies/classification',
    { config: { permission: 'cookies:edit' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const form = parseForm(OverrideForm, request.body, overrideFormOptions);
      const values = form.input as Record<string, string>;
      if (!form.ok) {
        return show(request, reply, {
          values,
          errors: form.refusal.form,
          fieldErrors: form.refusal.fields,
        });
      }
      const { kind, pattern, ...rest } = form.values;
      try {
        await setOverride(db, auditBy(request), tenantId, {
          [kind]: pattern,
          category: rest.category,
          provider: rest.provider,
          purpose: rest.purpose,
          retention: rest.retention,
        });
      } catch (error) {
        // The service names `cookie` or `host`; the form has one field for either.
        const refusal = refusalOf(error, {
          ...(overrideFormOptions.messages as Record<string, string>),
          cookie: overrideFormOptions.messages.pattern as string,
          host: overrideFormOptions.messages.pattern as string,
        });
        if (!refusal) throw error;
        const { cookie, host, ...fields } = refusal.fields;
        const pattern = cookie ?? host;
        return show(request, reply, {
          values,
          errors: refusal.form,
          fieldErrors: { ...fields, ...(pattern ? { pattern } : {}) },
        });
      }
      return redirectTo(reply, `${classificationPath}?notice=override_set`);
    },
  );

  app.post(
    '/cookies/classification/remove',
    { config: { permission: 'cookies:edit' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const form = parseForm(RemoveOverrideForm, request.body, { messages: {} });
      if (!form.ok) throw new AppError('invalidRequest', { message: 'No such classification.' });
      await removeOverride(db, auditBy(request), tenantId, {
        [form.values.kind]: form.values.pattern,
      });
      return redirectTo(reply, `${classificationPath}?notice=override_removed`);
    },
  );
}
