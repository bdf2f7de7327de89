import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { keepFlash, takeFlash } from '../../accounts/index.js';
import type { Db } from '../../platform/db.js';
import { AppError } from '../../platform/errors.js';
import { findProduct, listProducts } from '../../products/index.js';
import type { TemplateRow, TemplateVersionRow } from '../../templates/index.js';
import {
  contentFileOf,
  createDraftAs,
  createTemplateAs,
  findLatestVersion,
  getRelease,
  getTemplateByCode,
  getVersion,
  listTemplates,
  listVariants,
  listVersions,
  restoreTemplate,
  retireTemplate,
  reviewTimeline,
  sanitizeContent,
  templateOverview,
  updateDraftAs,
} from '../../templates/index.js';
import { productChoice } from '../products/choice.js';
import { auditBy, sessionTokenOf, tenantOf, zoneOf } from '../web/context.js';
import {
  fieldOf,
  formErrors,
  noRefusal,
  parseForm,
  queryOf,
  type Refusal,
  refusalOf,
} from '../web/forms.js';
import { type Html, html, segment } from '../web/html.js';
import { basePath, csrfToken, redirectTo, sectionPage } from '../web/layout.js';
import { contentFileRoutes } from './file-routes.js';
import { contentFileSection } from './file-views.js';
import { localeRoutes, otherLocalePanel } from './locale-routes.js';
import { localeTabs } from './locale-views.js';
import { templateListItem, templateModel, versionModel } from './models.js';
import { versionPath } from './review-views.js';
import {
  NewTemplateForm,
  newTemplateFormOptions,
  VersionForm,
  versionFormOptions,
} from './schemas.js';
import { suggestNextTag } from './tag-suggestion.js';
import {
  newTemplateForm,
  newVersionPage,
  templateList,
  templatePage,
  versionForm,
  versionPage,
} from './views.js';

type Params = { code: string; id: string };

const paramsOf = (request: FastifyRequest) => request.params as Params;
const newVersionPath = (code: string) => `/templates/${segment(code)}/versions/new`;

const keptNotice = html`<p class="notice" role="status">Your session had ended before this was saved. Your text is back: it is not saved yet.</p>`;

/** Content may be up to 1,000,000 characters; percent-encoded by the form, it grows. */
const versionBodyLimit = 8 * 1024 * 1024;

const notices: Record<string, string> = {
  created: 'Template created.',
  published: 'Version published. The API answers it within a second.',
  scheduled: 'Version approved and scheduled: the API answers it from its go-live time.',
  deleted: 'Template deleted, with its drafts.',
  archived: 'Template archived: within a second the API answers 404 for it.',
  restored: 'Template restored: the API answers its latest version again.',
  file_uploaded: 'Content file uploaded.',
  locale_saved: 'Locale saved.',
  locale_removed: 'Locale removed from the draft.',
  file_removed: 'Content file removed.',
};

/** "Draft saved." waits this long for the page the save redirects to. */
const savedNoticeMs = 60_000;

export async function templatePageRoutes(app: FastifyInstance, { db }: { db: Db }) {
  const page = sectionPage('templates', notices);

  app.get('/templates', { config: { permission: 'templates:view' } }, async (request, reply) => {
    const user = tenantOf(request);
    const { products, product } = await productChoice(db, user.tenantId, request.query);
    const templates = await listTemplates(db, user.tenantId, product?.id);
    const list = templateList(templates.map(templateListItem), {
      zone: user.timeZone,
      mayCreate: user.permissions.has('templates:create'),
      products,
      product: product?.code ?? '',
    });
    return page(request, reply, 'Templates', list);
  });

  const showNewTemplate = async (
    request: FastifyRequest,
    reply: FastifyReply,
    values: Record<string, string>,
    refusal: Refusal = noRefusal,
  ) =>
    page(
      request,
      reply,
      'New template',
      newTemplateForm({
        csrfToken: csrfToken(reply),
        values,
        products: (await listProducts(db, tenantOf(request).tenantId)).filter(
          (p) => p.archived_at === null,
        ),
        mayDraft: tenantOf(request).permissions.has('versions:create'),
        errors: refusal.form,
        fieldErrors: refusal.fields,
      }),
      refusal.form.length + Object.keys(refusal.fields).length > 0 ? 400 : 200,
    );

  app.get(
    '/templates/new',
    { config: { permission: 'templates:create' } },
    async (request, reply) =>
      showNewTemplate(request, reply, {
        code: '',
        name: '',
        description: '',
        product: queryOf(request.query, 'product'),
      }),
  );

  app.post('/templates', { config: { permission: 'templates:create' } }, async (request, reply) => {
    const { tenantId } = tenantOf(request);
    const form = parseForm(NewTemplateForm, request.body, newTemplateFormOptions);
    const first = versionValues(request.body);
    const values = {
      code: form.input.code ?? '',
      name: form.input.name ?? '',
      description: form.input.description ?? '',
      product: form.input.product ?? '',
      locale: form.input.locale ?? '',
      tag: first.tag,
      content_html: first.content_html,
      allow_reconsent: String(first.allow_reconsent),
    };
    if (!form.ok) return showNewTemplate(request, reply, values, form.refusal);
    const { product, locale, ...rest } = form.values;
    const fields = {
      ...rest,
      ...(product === '' ? {} : { product }),
      ...(locale === '' ? {} : { locale }),
    };
    // A first version is written when either of its fields is: both are then required.
    const withDraft = first.tag !== '' || first.content_html.trim() !== '';
    if (withDraft && !tenantOf(request).permissions.has('versions:create')) {
      throw new AppError('forbidden', { message: 'Writing a version needs versions:create.' });
    }
    let draftId: string | undefined;
    try {
      draftId = await db.transaction().execute(async (trx) => {
        const actor = auditBy(request);
        await createTemplateAs(trx, actor, tenantId, fields);
        if (!withDraft) return undefined;
        const template = await getTemplateByCode(trx, tenantId, fields.code);
        return (await createDraftAs(trx, actor, template, asInput(first))).id;
      });
    } catch (error) {
      const refusal = refusalOf(error, {
        ...newTemplateFormOptions.messages,
        ...versionFormOptions.messages,
      });
      if (!refusal) throw error;
      return showNewTemplate(request, reply, values, refusal);
    }
    if (draftId) return savedTo(request, reply, versionPath(values.code, draftId));
    return redirectTo(reply, `/templates/${segment(values.code)}?notice=created`);
  });

  /** A template's page; with the reason above its forms when one was refused (400). */
  const showTemplate = async (
    request: FastifyRequest,
    reply: FastifyReply,
    code: string,
    refused?: string,
  ) => {
    const { tenantId, timeZone, permissions } = tenantOf(request);
    const { template, versions, customers } = await templateOverview(db, tenantId, code);
    const product = template.product_id
      ? await findProduct(db, tenantId, template.product_id)
      : undefined;
    const body = templatePage({
      template: templateModel(template),
      versions: versions.map(versionModel),
      customers,
      zone: timeZone,
      may: {
        draft: permissions.has('versions:create'),
        edit: permissions.has('versions:edit'),
        retire: permissions.has('templates:delete'),
      },
      product,
      csrfToken: csrfToken(reply),
    });
    const shown = refused ? html`${formErrors([refused])}${body}` : body;
    return page(request, reply, template.name, shown, refused ? 400 : 200);
  };

  app.get<{ Params: Params }>(
    '/templates/:code',
    { config: { permission: 'templates:view' } },
    (request, reply) => showTemplate(request, reply, request.params.code),
  );

  app.post<{ Params: Pick<Params, 'code'> }>(
    '/templates/:code/retire',
    { config: { permission: 'templates:delete' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const template = await getTemplateByCode(db, tenantId, request.params.code);
      if (fieldOf(request.body, 'confirm') !== 'true') {
        return showTemplate(request, reply, template.code, 'Tick the box to confirm.');
      }
      const outcome = await db
        .transaction()
        .execute((trx) => retireTemplate(trx, auditBy(request), template));
      return outcome === 'deleted'
        ? redirectTo(reply, '/templates?notice=deleted')
        : redirectTo(reply, `/templates/${segment(template.code)}?notice=archived`);
    },
  );

  app.post<{ Params: Pick<Params, 'code'> }>(
    '/templates/:code/restore',
    { config: { permission: 'templates:delete' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const template = await getTemplateByCode(db, tenantId, request.params.code);
      await db.transaction().execute((trx) => restoreTemplate(trx, auditBy(request), template));
      return redirectTo(reply, `/templates/${segment(template.code)}?notice=restored`);
    },
  );

  const versionValues = (body: unknown) => ({
    tag: fieldOf(body, 'tag').trim(),
    content_html: fieldOf(body, 'content_html'),
    file_url: fieldOf(body, 'file_url').trim(),
    allow_reconsent: fieldOf(body, 'allow_reconsent') === 'true',
  });
  const asInput = (values: ReturnType<typeof versionValues>) => ({
    tag: values.tag,
    content_html: values.content_html,
    file_url: values.file_url === '' ? null : values.file_url,
    allow_reconsent: values.allow_reconsent,
  });

  const formFor = (
    reply: FastifyReply,
    template: TemplateRow,
    version: TemplateVersionRow | undefined,
    values: ReturnType<typeof versionValues>,
    refusal: Refusal = noRefusal,
  ) =>
    versionForm({
      template: templateModel(template),
      version: version && versionModel(version),
      csrfToken: csrfToken(reply),
      values,
      preview: sanitizeContent(values.content_html),
      errors: refusal.form,
      fieldErrors: refusal.fields,
    });

  const showVersion = async (
    request: FastifyRequest,
    reply: FastifyReply,
    template: TemplateRow,
    version: TemplateVersionRow,
    form: Html | undefined,
    status = 200,
    notice?: string,
    fileError?: string,
    /** Another locale's tab, instead of the release's own text. */
    other?: { locale: string; panel: Html },
  ) => {
    const path = `${basePath}${versionPath(template.code, version.id)}/file`;
    const mayEdit = tenantOf(request).permissions.has('versions:edit');
    const [steps, file, variants] = await Promise.all([
      reviewTimeline(db, version),
      contentFileOf(db, version),
      listVariants(db, version),
    ]);
    const tabs =
      variants.length > 1 || (version.status === 'draft' && mayEdit)
        ? localeTabs({
            path: `${basePath}${versionPath(template.code, version.id)}`,
            locales: variants.map((v) => v.locale),
            selected: other?.locale ?? version.locale,
            mayAdd: version.status === 'draft' && mayEdit,
          })
        : undefined;
    return page(
      request,
      reply,
      `${template.code} ${version.tag}`,
      versionPage({
        template: templateModel(template),
        version: versionModel(version),
        form,
        zone: zoneOf(request),
        steps,
        maySubmit: mayEdit,
        localeTabs: tabs,
        otherLocale: other?.panel,
        contentFile: contentFileSection({
          file,
          href: path,
          action: version.status === 'draft' && mayEdit ? path : undefined,
          csrfToken: csrfToken(reply),
          error: fileError,
        }),
      }),
      status,
      notice,
    );
  };

  await app.register(contentFileRoutes, {
    db,
    show: async (request, reply, template, version, fileError) => {
      if (version.id === version.release_id) {
        return showVersion(request, reply, template, version, undefined, 400, undefined, fileError);
      }
      // Another locale's file: the release's page, on that locale's tab.
      const release = await getVersion(db, template, version.release_id);
      const other = await otherLocalePanel(
        db,
        request,
        reply,
        template,
        release,
        undefined,
        noRefusal,
        {
          locale: version.locale,
          error: fileError,
        },
      );
      return showVersion(
        request,
        reply,
        template,
        release,
        undefined,
        400,
        undefined,
        undefined,
        other,
      );
    },
  });
  await app.register(localeRoutes, {
    db,
    show: (request, reply, template, version, other, status = 200) =>
      showVersion(
        request,
        reply,
        template,
        version,
        undefined,
        status,
        undefined,
        undefined,
        other,
      ),
  });

  /** A version's page with its form and the reason the service refused it: 409 once published. */
  const refusedDraft = (
    request: FastifyRequest,
    reply: FastifyReply,
    template: TemplateRow,
    version: TemplateVersionRow,
    values: ReturnType<typeof versionValues>,
    refusal: Refusal,
  ) =>
    showVersion(
      request,
      reply,
      template,
      version,
      formFor(reply, template, version, values, refusal),
      version.status === 'draft' ? 400 : 409,
    );

  /** A draft's fields carried through signing in again (see `signInKeeping`), taken once. */
  const keptForm = async (request: FastifyRequest, path: string) => {
    const kept = await takeFlash(db, request.backofficeSessionToken, `form:${basePath}${path}`);
    return kept === undefined ? undefined : versionValues(JSON.parse(kept));
  };

  /** After a save: the draft's page, which says "Draft saved." once. */
  const savedTo = async (request: FastifyRequest, reply: FastifyReply, path: string) => {
    await keepFlash(
      db,
      sessionTokenOf(request),
      `notice:${basePath}${path}`,
      'saved',
      savedNoticeMs,
    );
    return redirectTo(reply, path);
  };

  app.get<{ Params: Params }>(
    '/templates/:code/versions/new',
    { config: { permission: 'versions:create' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const template = await getTemplateByCode(db, tenantId, request.params.code);
      const kept = await keptForm(request, newVersionPath(template.code));
      let values = kept;
      if (!values) {
        // Starting from the latest text is what an edit of a policy usually is.
        const [latest, versions] = await Promise.all([
          findLatestVersion(db, tenantId, template.code),
          listVersions(db, template),
        ]);
        const newest = versions.find((v) => v.status === 'published') ?? versions[0];
        values = {
          tag: suggestNextTag(
            newest?.tag,
            versions.map((v) => v.tag),
          ),
          content_html: latest?.content_html ?? '',
          file_url: '',
          allow_reconsent: latest ? latest.allow_reconsent === 1 : true,
        };
      }
      const form = formFor(reply, template, undefined, values);
      return page(
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
      const values = versionValues(request.body);
      const refused = (refusal: Refusal) =>
        page(
          request,
          reply,
          'New draft',
          newVersionPage(
            formFor(reply, template, undefined, values, refusal),
            templateModel(template),
          ),
          400,
        );
      const form = parseForm(VersionForm, request.body, versionFormOptions);
      if (!form.ok) return refused(form.refusal);
      const input = asInput({ ...form.values, allow_reconsent: values.allow_reconsent });
      let draft: TemplateVersionRow;
      try {
        draft = await db
          .transaction()
          .execute((trx) => createDraftAs(trx, auditBy(request), template, input));
      } catch (error) {
        const refusal = refusalOf(error, versionFormOptions.messages);
        if (!refusal) throw error;
        return refused(refusal);
      }
      return savedTo(request, reply, versionPath(template.code, draft.id));
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
          const versionId = fieldOf(request.body, 'version_id');
          const { code } = paramsOf(request);
          return versionId === '' ? newVersionPath(code) : versionPath(code, versionId);
        },
      },
    },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const template = await getTemplateByCode(db, tenantId, request.params.code);
      const values = versionValues(request.body);
      if (request.headers['hx-request'] === 'true') {
        return reply.type('text/html; charset=utf-8').send(sanitizeContent(values.content_html));
      }
      const versionId = fieldOf(request.body, 'version_id');
      if (versionId === '') {
        const form = formFor(reply, template, undefined, values);
        return page(request, reply, 'New draft', newVersionPage(form, templateModel(template)));
      }
      const version = await getRelease(db, template, versionId);
      const form =
        version.status === 'draft' ? formFor(reply, template, version, values) : undefined;
      return showVersion(request, reply, template, version, form);
    },
  );

  app.get<{ Params: Params }>(
    '/templates/:code/versions/:id',
    { config: { permission: 'templates:view' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const template = await getTemplateByCode(db, tenantId, request.params.code);
      const version = await getRelease(db, template, request.params.id);
      const other = await otherLocalePanel(db, request, reply, template, version);
      if (other)
        return showVersion(
          request,
          reply,
          template,
          version,
          undefined,
          200,
          undefined,
          undefined,
          other,
        );
      const path = versionPath(template.code, version.id);
      const [kept, notice] = await Promise.all([
        version.status === 'draft' ? keptForm(request, path) : undefined,
        takeFlash(db, request.backofficeSessionToken, `notice:${basePath}${path}`),
      ]);
      const form =
        version.status === 'draft' && tenantOf(request).permissions.has('versions:edit')
          ? formFor(reply, template, version, kept ?? savedValues(version))
          : undefined;
      return showVersion(
        request,
        reply,
        template,
        version,
        form && kept ? html`${keptNotice}${form}` : form,
        200,
        notice === 'saved' && version.status === 'draft' ? 'Draft saved.' : undefined,
      );
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
      const values = versionValues(request.body);
      const refused = async (refusal: Refusal) => {
        const version = await getRelease(db, template, request.params.id);
        return refusedDraft(request, reply, template, version, values, refusal);
      };
      const form = parseForm(VersionForm, request.body, versionFormOptions);
      if (!form.ok) return refused(form.refusal);
      const input = asInput({ ...form.values, allow_reconsent: values.allow_reconsent });
      try {
        await db
          .transaction()
          .execute((trx) =>
            updateDraftAs(trx, auditBy(request), template, request.params.id, input),
          );
      } catch (error) {
        const refusal = refusalOf(error, versionFormOptions.messages);
        if (!refusal) throw error;
        return refused(refusal);
      }
      return savedTo(request, reply, versionPath(template.code, request.params.id));
    },
  );
}

/** A saved version's fields, as its form shows them. */
function savedValues(version: TemplateVersionRow) {
  return {
    tag: version.tag,
    content_html: version.content_html,
    file_url: version.file_url ?? '',
    allow_reconsent: version.allow_reconsent === 1,
  };
}
