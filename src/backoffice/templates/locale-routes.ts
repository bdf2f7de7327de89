import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../platform/db.js';
import { AppError } from '../../platform/errors.js';
import type { TemplateRow, TemplateVersionRow } from '../../templates/index.js';
import {
  contentFileOf,
  getRelease,
  getTemplateByCode,
  listVariants,
  removeDraftVariantAs,
  saveDraftVariantAs,
} from '../../templates/index.js';
import { tenantOf } from '../web/context.js';
import { confirmed, noRefusal, parseForm, queryOf, type Refusal, refusalOf } from '../web/forms.js';
import { type Html, html, segment } from '../web/html.js';
import { basePath, csrfToken, redirectTo } from '../web/layout.js';
import { contentFileSection } from './file-views.js';
import { variantForm, variantView } from './locale-views.js';
import { versionPath } from './review-views.js';
import { LocaleForm, localeFormOptions } from './schemas.js';
import { authorOf } from './section.js';
import { showVersionPage } from './version-page.js';

type Params = { code: string; id: string };

const pathOf = (template: TemplateRow, version: TemplateVersionRow) =>
  versionPath(template.code, version.id);

/**
 * The tab of another locale than the release's own, when `?locale=` asks for one: its text, and
 * on a draft the form to change or drop it; `new` opens the form for a locale it lacks.
 */
export async function otherLocalePanel(
  db: Db,
  request: FastifyRequest,
  reply: FastifyReply,
  template: TemplateRow,
  version: TemplateVersionRow,
  values?: { locale: string; content_html: string; file_url: string; adding?: boolean },
  refusal: Refusal = noRefusal,
  file: { locale: string; error: string } | undefined = undefined,
): Promise<{ locale: string; panel: Html } | undefined> {
  const asked = file?.locale ?? values?.locale ?? queryOf(request.query, 'locale');
  // A refused "Add a locale" shows its own form again, whatever locale it named.
  const adding = values?.adding === true;
  if (!adding && (asked === '' || asked === version.locale)) return undefined;
  const editable = version.status === 'draft' && tenantOf(request).permissions.has('versions:edit');
  const action = `${basePath}${pathOf(template, version)}/locales`;
  const variant = (await listVariants(db, version)).find(
    (v) => v.locale === asked && v.id !== version.id,
  );
  const form = (locale: string | undefined) =>
    variantForm({
      action,
      csrfToken: csrfToken(reply),
      locale,
      values: values ?? {
        locale: '',
        content_html: variant?.content_html ?? '',
        file_url: variant?.file_url ?? '',
      },
      errors: refusal.form,
      fieldErrors: refusal.fields,
    });
  if (!variant || adding) {
    return editable ? { locale: 'new', panel: form(undefined) } : undefined;
  }
  const filePath = `${basePath}${versionPath(template.code, variant.id)}/file`;
  const view = html`${contentFileSection({
    file: await contentFileOf(db, variant),
    href: filePath,
    action: editable ? filePath : undefined,
    csrfToken: csrfToken(reply),
    error: file?.error,
  })}${variantView({
    locale: variant.locale,
    contentHtml: variant.content_html,
    contentSha256: variant.content_sha256,
    removeAction: editable ? `${action}/${segment(variant.locale)}/remove` : undefined,
    csrfToken: csrfToken(reply),
  })}`;
  return {
    locale: variant.locale,
    panel: editable ? html`${view}<h2>Edit this locale</h2>${form(variant.locale)}` : view,
  };
}

/** A draft release's other locales: save one (new or changed), drop one. */
export async function localeRoutes(app: FastifyInstance, { db }: { db: Db }) {
  const target = async (request: FastifyRequest<{ Params: Params }>) => {
    const { tenantId } = tenantOf(request);
    const template = await getTemplateByCode(db, tenantId, request.params.code);
    return { template, version: await getRelease(db, template, request.params.id) };
  };

  app.post<{ Params: Params }>(
    '/templates/:code/versions/:id/locales',
    { config: { permission: 'versions:edit' } },
    async (request, reply) => {
      const { template, version } = await target(request);
      const { input } = parseForm(LocaleForm, request.body, localeFormOptions);
      const values = {
        locale: input.locale ?? '',
        content_html: input.content_html ?? '',
        file_url: input.file_url ?? '',
        adding: input.adding === 'true',
      };
      let saved: TemplateVersionRow;
      try {
        saved = await db.transaction().execute((trx) =>
          saveDraftVariantAs(
            trx,
            authorOf(request),
            template,
            version.id,
            {
              locale: values.locale,
              content_html: values.content_html,
              file_url: values.file_url === '' ? null : values.file_url,
            },
            { adding: values.adding },
          ),
        );
      } catch (error) {
        const refusal = refusalOf(error, localeFormOptions.messages);
        if (!refusal || (error as AppError).status !== 400) throw error;
        const panel = await otherLocalePanel(
          db,
          request,
          reply,
          template,
          version,
          values,
          refusal,
        );
        if (!panel) throw error;
        return showVersionPage(db, request, reply, {
          template,
          version,
          other: panel,
          status: 400,
        });
      }
      return redirectTo(
        reply,
        `${pathOf(template, version)}?locale=${segment(saved.locale)}&notice=locale_saved`,
      );
    },
  );

  app.post<{ Params: Params & { locale: string } }>(
    '/templates/:code/versions/:id/locales/:locale/remove',
    { config: { permission: 'versions:edit' } },
    async (request, reply) => {
      const { template, version } = await target(request);
      if (!confirmed(request.body)) {
        throw new AppError('invalidRequest', { message: 'Tick the box to confirm.' });
      }
      await db
        .transaction()
        .execute((trx) =>
          removeDraftVariantAs(trx, authorOf(request), template, version.id, request.params.locale),
        );
      return redirectTo(reply, `${pathOf(template, version)}?notice=locale_removed`);
    },
  );
}
