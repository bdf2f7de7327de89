import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Db } from '../../platform/db.js';
import type { TemplateRow, TemplateVersionRow } from '../../templates/index.js';
import {
  createDraftAs,
  findLatestVersion,
  getRelease,
  getTemplateByCode,
  listVariants,
  listVersions,
  releasePartners,
  sanitizeContent,
  setDraftPartnersAs,
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
  partnerChoice,
  postedPartners,
  savedTo,
  versionBodyLimit,
} from './draft-form.js';
import { templateModel } from './models.js';
import { versionPath } from './review-views.js';
import { PreviewForm, previewFormOptions, VersionForm, versionFormOptions } from './schemas.js';
import { authorOf, templatesPage } from './section.js';
import { suggestNextTag } from './tag-suggestion.js';
import { showVersionPage } from './version-page.js';
import { newVersionPage, type StartingPoint } from './views.js';

type Params = { code: string; id: string };

const paramsOf = (request: FastifyRequest) => request.params as Params;

/**
 * Where a new draft starts: the release rejected after the latest publication, if one was (its
 * text, and its tag, free again), otherwise the latest live release; none for a first version.
 */
async function startingRelease(
  db: Db,
  template: TemplateRow,
  versions: TemplateVersionRow[],
): Promise<TemplateVersionRow | undefined> {
  const latest = await findLatestVersion(db, template.tenant_id, template.code);
  const rejected = versions
    .filter((v) => v.status === 'rejected')
    .sort((x, y) => y.updated_at.localeCompare(x.updated_at))[0];
  if (rejected && (!latest?.published_at || rejected.updated_at > latest.published_at)) {
    return rejected;
  }
  return latest;
}

/**
 * A new draft's fields: the text it starts from in the template's default locale (every other
 * locale of that release is carried over when it is saved), and the tag after the newest one
 * (or the rejected release's own tag, free again).
 */
async function startingValues(
  db: Db,
  template: TemplateRow,
): Promise<{ values: DraftValues; start: StartingPoint | undefined }> {
  const versions = await listVersions(db, template);
  const start = await startingRelease(db, template, versions);
  const variants = start ? await listVariants(db, start) : [];
  const own = variants.find((v) => v.locale === template.default_locale) ?? start;
  const used = versions.filter((v) => v.status !== 'rejected');
  const newest = used.find((v) => v.status === 'published') ?? used[0];
  return {
    values: {
      tag:
        start?.status === 'rejected'
          ? start.tag
          : suggestNextTag(
              newest?.tag,
              used.map((v) => v.tag),
            ),
      content_html: own?.content_html ?? '',
      file_url: '',
      allow_reconsent: start ? start.allow_reconsent === 1 : true,
      from_release: start?.id ?? '',
    },
    start: start && {
      version: start.version,
      tag: start.tag,
      rejected: start.status === 'rejected',
      carried: variants.map((v) => v.locale).filter((l) => l !== (own?.locale ?? '')),
    },
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
      const starting = kept ? undefined : await startingValues(db, template);
      const values = kept ?? (starting as { values: DraftValues }).values;
      const from = values.from_release;
      const chosen = from ? await releasePartners(db, template, from).catch(() => []) : [];
      const partners = await partnerChoice(
        db,
        tenantId,
        chosen.map((p) => p.code),
      );
      const form = draftForm(reply, template, undefined, values, undefined, partners);
      return templatesPage(
        request,
        reply,
        'New draft',
        newVersionPage(
          kept ? html`${keptNotice}${form}` : form,
          templateModel(template),
          starting?.start,
        ),
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
      const codes = postedPartners(request.body);
      const refused = async (refusal: Refusal) =>
        templatesPage(
          request,
          reply,
          'New draft',
          newVersionPage(
            draftForm(
              reply,
              template,
              undefined,
              values,
              refusal,
              await partnerChoice(db, tenantId, codes ?? []),
            ),
            templateModel(template),
          ),
          400,
        );
      if (!form.ok) return refused(form.refusal);
      let draft: TemplateVersionRow;
      try {
        draft = await db.transaction().execute(async (trx) => {
          const made = await createDraftAs(
            trx,
            authorOf(request),
            template,
            draftInput(values),
            values.from_release,
          );
          if (codes !== undefined) {
            await setDraftPartnersAs(trx, auditBy(request), template, made.id, codes);
          }
          return made;
        });
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
      const codes = postedPartners(request.body);
      // The draft's page with its form and the reason: 409 once it is no longer a draft.
      const refused = async (refusal: Refusal) => {
        const version = await getRelease(db, template, request.params.id);
        const chosen =
          codes ?? (await releasePartners(db, template, version.id)).map((p) => p.code);
        return showVersionPage(db, request, reply, {
          template,
          version,
          form: draftForm(
            reply,
            template,
            version,
            values,
            refusal,
            await partnerChoice(db, tenantId, chosen),
          ),
          status: version.status === 'draft' ? 400 : 409,
        });
      };
      if (!form.ok) return refused(form.refusal);
      try {
        await db.transaction().execute(async (trx) => {
          await updateDraftAs(
            trx,
            authorOf(request),
            template,
            request.params.id,
            draftInput(values),
          );
          if (codes !== undefined) {
            await setDraftPartnersAs(trx, auditBy(request), template, request.params.id, codes);
          }
        });
      } catch (error) {
        const refusal = refusalOf(error, versionFormOptions.messages);
        if (!refusal) throw error;
        return refused(refusal);
      }
      return savedTo(db, request, reply, versionPath(template.code, request.params.id));
    },
  );
}
