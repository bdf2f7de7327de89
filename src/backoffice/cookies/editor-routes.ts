import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { declareScannedCookies } from '../../cookie-scanner/index.js';
import {
  type ConfigurationContent,
  type CookieConfiguration,
  changeConfiguration,
  getConfiguration,
  withLocale,
  withoutLocale,
} from '../../cookies/index.js';
import type { Db } from '../../platform/db.js';
import { AppError } from '../../platform/errors.js';
import { tenantOf } from '../web/context.js';
import { confirmed, type FieldErrors, parseForm } from '../web/forms.js';
import { csrfToken, redirectTo } from '../web/layout.js';
import {
  contentOfForm,
  contentRefusal,
  editorMessages,
  editorSchema,
  valuesOfDraft,
} from './editor-form.js';
import { editorPage } from './editor-views.js';
import { configurationPath } from './paths.js';
import { LocaleForm, localeFormOptions } from './schemas.js';
import { cookiesPage, editorOf } from './section.js';

type Params = { id: string };

/** A draft, or `409 1005` saying why a configuration that left draft is not edited. */
async function draftOf(db: Db, request: FastifyRequest, id: string): Promise<CookieConfiguration> {
  const configuration = await getConfiguration(db, tenantOf(request).tenantId, id);
  if (configuration.status !== 'draft') {
    throw new AppError('conflict', {
      message:
        'Only a draft configuration can be changed: make a new configuration from this one instead.',
    });
  }
  return configuration;
}

/** The draft's editor, and adding or removing one of its locales. */
export async function editorRoutes(app: FastifyInstance, { db }: { db: Db }) {
  const show = (
    request: FastifyRequest,
    reply: FastifyReply,
    draft: CookieConfiguration,
    refused?: {
      values?: Record<string, string>;
      errors?: string[];
      fieldErrors?: FieldErrors;
      localeError?: string;
      localeValue?: string;
      status: number;
    },
  ) =>
    cookiesPage(
      request,
      reply,
      `Edit ${draft.name}`,
      editorPage({
        id: draft.id,
        name: draft.name,
        stored: draft.content,
        values: refused?.values ?? valuesOfDraft(draft),
        errors: refused?.errors ?? [],
        fieldErrors: refused?.fieldErrors ?? {},
        localeError: refused?.localeError,
        localeValue: refused?.localeValue,
        csrfToken: csrfToken(reply),
      }),
      refused?.status ?? 200,
    );

  app.get<{ Params: Params }>(
    '/cookies/configurations/:id/edit',
    { config: { permission: 'cookies:edit' } },
    async (request, reply) => show(request, reply, await draftOf(db, request, request.params.id)),
  );

  app.post<{ Params: Params }>(
    '/cookies/configurations/:id',
    { config: { permission: 'cookies:edit' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const draft = await draftOf(db, request, request.params.id);
      const form = parseForm(editorSchema(draft.content), request.body, {
        messages: editorMessages(draft.content),
      });
      const values = form.input as Record<string, string>;
      if (!form.ok) {
        return show(request, reply, draft, {
          values,
          errors: form.refusal.form,
          fieldErrors: form.refusal.fields,
          status: 400,
        });
      }
      const content: ConfigurationContent = contentOfForm(draft.content, values);
      try {
        await db
          .transaction()
          .execute((trx) =>
            changeConfiguration(
              trx,
              tenantId,
              draft.id,
              { name: values.name ?? '', effective_date: values.effective_date ?? '', content },
              editorOf(request),
            ),
          );
      } catch (error) {
        if (!(error instanceof AppError) || error.status !== 400) throw error;
        const refusal = contentRefusal(error.details ?? [], content);
        return show(request, reply, draft, {
          values,
          errors: error.details?.length ? refusal.form : [error.message],
          fieldErrors: refusal.fields,
          status: 400,
        });
      }
      return redirectTo(reply, `${configurationPath(draft.id)}?notice=saved`);
    },
  );

  // The last scan's cookies into the draft's lists, with what the scan knew of each.
  app.post<{ Params: Params }>(
    '/cookies/configurations/:id/declare-scanned',
    { config: { permission: 'cookies:edit' } },
    async (request, reply) => {
      const draft = await draftOf(db, request, request.params.id);
      try {
        const { added } = await declareScannedCookies(
          db,
          tenantOf(request).tenantId,
          draft.id,
          editorOf(request),
        );
        const notice = added > 0 ? 'scanned_added' : 'scanned_none';
        return redirectTo(reply, `${configurationPath(draft.id)}/edit?notice=${notice}`);
      } catch (error) {
        if (!(error instanceof AppError) || error.status !== 404) throw error;
        return redirectTo(reply, `${configurationPath(draft.id)}/edit?notice=no_scan`);
      }
    },
  );

  app.post<{ Params: Params }>(
    '/cookies/configurations/:id/locales',
    { config: { permission: 'cookies:edit' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const draft = await draftOf(db, request, request.params.id);
      const form = parseForm(LocaleForm, request.body, localeFormOptions);
      const typed = form.input.locale ?? '';
      const badTag = 'A BCP 47 language tag, such as th or en-GB.';
      if (!form.ok) {
        return show(request, reply, draft, {
          localeError: badTag,
          localeValue: typed,
          status: 400,
        });
      }
      try {
        const content = withLocale(draft.content, form.values.locale);
        await db
          .transaction()
          .execute((trx) =>
            changeConfiguration(trx, tenantId, draft.id, { content }, editorOf(request)),
          );
      } catch (error) {
        if (!(error instanceof AppError) || (error.status !== 400 && error.status !== 409)) {
          throw error;
        }
        const localeError = error.status === 409 ? error.message : badTag;
        return show(request, reply, draft, {
          localeError,
          localeValue: typed,
          status: error.status,
        });
      }
      return redirectTo(reply, `${configurationPath(draft.id)}/edit?notice=locale_added`);
    },
  );

  app.post<{ Params: Params & { locale: string } }>(
    '/cookies/configurations/:id/locales/:locale/remove',
    { config: { permission: 'cookies:edit' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const draft = await draftOf(db, request, request.params.id);
      if (!confirmed(request.body)) {
        return show(request, reply, draft, { errors: ['Tick the box to confirm.'], status: 400 });
      }
      try {
        const content = withoutLocale(draft.content, request.params.locale);
        await db
          .transaction()
          .execute((trx) =>
            changeConfiguration(trx, tenantId, draft.id, { content }, editorOf(request)),
          );
      } catch (error) {
        if (!(error instanceof AppError) || error.status !== 400) throw error;
        const reason = error.details?.map((d) => `The locale ${d.issue}.`) ?? [error.message];
        return show(request, reply, draft, { errors: reason, status: 400 });
      }
      return redirectTo(reply, `${configurationPath(draft.id)}/edit?notice=locale_removed`);
    },
  );
}
