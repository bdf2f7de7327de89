import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Db } from '../../platform/db.js';
import type { TemplateRow, TemplateVersionRow } from '../../templates/index.js';
import {
  createDraftAs,
  findLatestVersion,
  getRelease,
  getTemplateByCode,
  listVersions,
  sanitizeContent,
  updateDraftAs,
} from '../../templates/index.js';
import { auditBy, tenantOf } from '../web/context.js';
import { parseForm, type Refusal, refusalOf } from '../web/forms.js';
import { html } from '../web/html.js';
import {
  type DraftValues,
  draftForm,
  draftInput,
  draftValues,
  keptDraft,
  keptNotice,
  newVersionPath,
  savedTo,
  versionBodyLimit,
} from './draft-form.js';
import { templateModel } from './models.js';
import { versionPath } from './review-views.js';
import { PreviewForm, previewFormOptions, VersionForm, versionFormOptions } from './schemas.js';
import { templatesPage } from './section.js';
import { suggestNextTag } from './tag-suggestion.js';
import { showVersionPage } from './version-page.js';
import { newVersionPage } from './views.js';

type Params = { code: string; id: string };

const paramsOf = (request: FastifyRequest) => request.params as Params;

/**
 * A new draft's fields: the latest version's text (what an edit of a policy usually starts
 * from) and the tag after the newest one.
 */
async function startingValues(db: Db, template: TemplateRow): Promise<DraftValues> {
  const [latest, versions] = await Promise.all([
    findLatestVersion(db, template.tenant_id, template.code),
    listVersions(db, template),
  ]);
  const newest = versions.find((v) => v.status === 'published') ?? versions[0];
  return {
    tag: suggestNextTag(
      newest?.tag,
      versions.map((v) => v.tag),
    ),
    content_html: latest?.content_html ?? '',
    file_url: '',
    allow_reconsent: latest ? latest.allow_reconsent === 1 : true,
  };
}

/** Writing versions: a new draft, saving a draft, and the preview of what saving would keep. */
export async function draftRoutes(app: FastifyInstance, { db }: { db: Db }) {
  app.get<{ Params: Params }>(
    '/templates/:code/versions/new',
    { config: { permission: 'versions:create' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const template = await getTemplateByCode(db, tenantId, request.params.code);
      const kept = await keptDraft(db, request, newVersionPath(template.code));
      const values = kept ?? (await startingValues(db, template));
      const form = draftForm(reply, template, undefined, values);
      return templatesPage(
        request,
        reply,
        'New draft',
        newVersionPage(kept ? html`${keptNotice}${form}` : form, templateModel(template)),
      );
    },
  );

  app.post<{ Params: Params }>(
    '/templates/:code/versions',
    {
      bodyLimit: versionBodyLimit,
      config: {
        permission: 'versions:create',
        formPage: (request) => newVersionPath(paramsOf(request).code),
      },
    },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const template = await getTemplateByCode(db, tenantId, request.params.code);
      const form = parseForm(VersionForm, request.body, versionFormOptions);
      const values = draftValues(form.input);
      const refused = (refusal: Refusal) =>
        templatesPage(
          request,
          reply,
          'New draft',
          newVersionPage(
            draftForm(reply, template, undefined, values, refusal),
            templateModel(template),
          ),
          400,
        );
      if (!form.ok) return refused(form.refusal);
      let draft: TemplateVersionRow;
      try {
        draft = await db
          .transaction()
          .execute((trx) => createDraftAs(trx, auditBy(request), template, draftInput(values)));
      } catch (error) {
        const refusal = refusalOf(error, versionFormOptions.messages);
        if (!refusal) throw error;
        return refused(refusal);
      }
      return savedTo(db, request, reply, versionPath(template.code, draft.id));
    },
  );

  // The sanitizer's output for the content being written: for htmx (`HX-Request`) the fragment
  // alone, for a browser without scripts the whole form page again. Nothing is stored.
  app.post<{ Params: Pick<Params, 'code'> }>(
    '/templates/:code/preview',
    {
      bodyLimit: versionBodyLimit,
      config: {
        permission: 'versions:edit',
        formPage: (request) => {
          const versionId = parseForm(PreviewForm, request.body, previewFormOptions).input
            .version_id;
          const { code } = paramsOf(request);
          return versionId ? versionPath(code, versionId) : newVersionPath(code);
        },
      },
    },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const template = await getTemplateByCode(db, tenantId, request.params.code);
      const { input } = parseForm(PreviewForm, request.body, previewFormOptions);
      const values = draftValues(input);
      if (request.headers['hx-request'] === 'true') {
        return reply.type('text/html; charset=utf-8').send(sanitizeContent(values.content_html));
      }
      if (!input.version_id) {
        const form = draftForm(reply, template, undefined, values);
        return templatesPage(
          request,
          reply,
          'New draft',
          newVersionPage(form, templateModel(template)),
        );
      }
      const version = await getRelease(db, template, input.version_id);
      const form =
        version.status === 'draft' ? draftForm(reply, template, version, values) : undefined;
      return showVersionPage(db, request, reply, { template, version, form });
    },
  );

  app.post<{ Params: Params }>(
    '/templates/:code/versions/:id',
    {
      bodyLimit: versionBodyLimit,
      config: {
        permission: 'versions:edit',
        formPage: (request) => versionPath(paramsOf(request).code, paramsOf(request).id),
      },
    },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const template = await getTemplateByCode(db, tenantId, request.params.code);
      const form = parseForm(VersionForm, request.body, versionFormOptions);
      const values = draftValues(form.input);
      // The draft's page with its form and the reason: 409 once it is no longer a draft.
      const refused = async (refusal: Refusal) => {
        const version = await getRelease(db, template, request.params.id);
        return showVersionPage(db, request, reply, {
          template,
          version,
          form: draftForm(reply, template, version, values, refusal),
          status: version.status === 'draft' ? 400 : 409,
        });
      };
      if (!form.ok) return refused(form.refusal);
      try {
        await db
          .transaction()
          .execute((trx) =>
            updateDraftAs(trx, auditBy(request), template, request.params.id, draftInput(values)),
          );
      } catch (error) {
        const refusal = refusalOf(error, versionFormOptions.messages);
        if (!refusal) throw error;
        return refused(refusal);
      }
      return savedTo(db, request, reply, versionPath(template.code, request.params.id));
    },
  );
}
