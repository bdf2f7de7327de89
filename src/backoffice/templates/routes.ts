import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { keepFlash, takeFlash } from '../../accounts/flashes.js';
import { recordAudit } from '../../audit/service.js';
import { countCustomersDecidedOn, customersPerTemplate } from '../../decisions/history.js';
import type { Db } from '../../platform/db.js';
import { findLatestPublished } from '../../templates/repository.js';
import { sanitizeContent } from '../../templates/sanitize.js';
import {
  createDraftVersion,
  createTemplate,
  getTemplateByCode,
  getVersion,
  listTemplates,
  listVersions,
  publishDraftById,
  updateDraftVersion,
} from '../../templates/service.js';
import type { TemplateRow, TemplateVersionRow } from '../../templates/table.js';
import { auditBy, sessionTokenOf, tenantOf } from '../web/context.js';
import { fieldOf, noRefusal, type Refusal, refusalOf } from '../web/forms.js';
import { html, segment } from '../web/html.js';
import { basePath, csrfToken, redirectTo, sectionPage } from '../web/layout.js';
import { suggestNextTag } from './tag-suggestion.js';
import {
  newTemplateForm,
  newVersionPage,
  publishConfirmation,
  templateList,
  templateMessages,
  templatePage,
  versionForm,
  versionMessages,
  versionPage,
} from './views.js';

type Params = { code: string; id: string };

const paramsOf = (request: FastifyRequest) => request.params as Params;
const newVersionPath = (code: string) => `/templates/${segment(code)}/versions/new`;
const versionPath = (code: string, id: string) =>
  `/templates/${segment(code)}/versions/${segment(id)}`;

const keptNotice = html`<p class="notice" role="status">Your session had ended before this was saved. Your text is back: it is not saved yet.</p>`;

/** Content may be up to 1,000,000 characters; percent-encoded by the form, it grows. */
const versionBodyLimit = 8 * 1024 * 1024;

const notices: Record<string, string> = {
  created: 'Template created.',
  published: 'Version published. The API answers it within a second.',
};

/** "Draft saved." waits this long for the page the save redirects to. */
const savedNoticeMs = 60_000;

export async function templatePageRoutes(app: FastifyInstance, { db }: { db: Db }) {
  const page = sectionPage('templates', notices);

  app.get('/templates', async (request, reply) => {
    const { tenantId } = tenantOf(request);
    return page(request, reply, 'Templates', templateList(await listTemplates(db, tenantId)));
  });

  const showNewTemplate = (
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
        errors: refusal.form,
        fieldErrors: refusal.fields,
      }),
      refusal.form.length + Object.keys(refusal.fields).length > 0 ? 400 : 200,
    );

  app.get('/templates/new', async (request, reply) =>
    showNewTemplate(request, reply, { code: '', name: '', description: '' }),
  );

  app.post('/templates', async (request, reply) => {
    const { tenantId } = tenantOf(request);
    const values = {
      code: fieldOf(request.body, 'code').trim(),
      name: fieldOf(request.body, 'name').trim(),
      description: fieldOf(request.body, 'description').trim(),
    };
    try {
      await db.transaction().execute(async (trx) => {
        const created = await createTemplate(trx, tenantId, values);
        await recordAudit(trx, {
          ...auditBy(request),
          action: 'template.created',
          target: created.code,
          details: { name: created.name },
        });
      });
    } catch (error) {
      const refusal = refusalOf(error, templateMessages);
      if (!refusal) throw error;
      return showNewTemplate(request, reply, values, refusal);
    }
    return redirectTo(reply, `/templates/${segment(values.code)}?notice=created`);
  });

  app.get<{ Params: Params }>('/templates/:code', async (request, reply) => {
    const { tenantId } = tenantOf(request);
    const template = await getTemplateByCode(db, tenantId, request.params.code);
    const [versions, customers] = await Promise.all([
      listVersions(db, template),
      customersPerTemplate(db, tenantId),
    ]);
    return page(
      request,
      reply,
      template.name,
      templatePage({ template, versions, customers: customers.get(template.id) ?? 0 }),
    );
  });

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
      template,
      version,
      csrfToken: csrfToken(reply),
      values,
      preview: sanitizeContent(values.content_html),
      errors: refusal.form,
      fieldErrors: refusal.fields,
    });

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

  app.get<{ Params: Params }>('/templates/:code/versions/new', async (request, reply) => {
    const { tenantId } = tenantOf(request);
    const template = await getTemplateByCode(db, tenantId, request.params.code);
    const kept = await keptForm(request, newVersionPath(template.code));
    let values = kept;
    if (!values) {
      // Starting from the latest text is what an edit of a policy usually is.
      const [latest, versions] = await Promise.all([
        findLatestPublished(db, tenantId, template.code),
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
      newVersionPage(kept ? html`${keptNotice}${form}` : form, template),
    );
  });

  app.post<{ Params: Params }>(
    '/templates/:code/versions',
    {
      bodyLimit: versionBodyLimit,
      config: { formPage: (request) => newVersionPath(paramsOf(request).code) },
    },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const template = await getTemplateByCode(db, tenantId, request.params.code);
      const values = versionValues(request.body);
      let draft: TemplateVersionRow;
      try {
        draft = await db.transaction().execute(async (trx) => {
          const row = await createDraftVersion(trx, template, asInput(values));
          await recordAudit(trx, {
            ...auditBy(request),
            action: 'version.draft_created',
            target: `${template.code} ${row.tag}`,
            details: { version_id: row.id, content_sha256: row.content_sha256 },
          });
          return row;
        });
      } catch (error) {
        const refusal = refusalOf(error, versionMessages);
        if (!refusal) throw error;
        const form = formFor(reply, template, undefined, values, refusal);
        return page(request, reply, 'New draft', newVersionPage(form, template), 400);
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
        return page(request, reply, 'New draft', newVersionPage(form, template));
      }
      const version = await getVersion(db, template, versionId);
      const form =
        version.status === 'draft' ? formFor(reply, template, version, values) : undefined;
      return page(
        request,
        reply,
        `${template.code} ${version.tag}`,
        versionPage({ template, version, form }),
      );
    },
  );

  app.get<{ Params: Params }>('/templates/:code/versions/:id', async (request, reply) => {
    const { tenantId } = tenantOf(request);
    const template = await getTemplateByCode(db, tenantId, request.params.code);
    const version = await getVersion(db, template, request.params.id);
    const path = versionPath(template.code, version.id);
    const [kept, notice] = await Promise.all([
      version.status === 'draft' ? keptForm(request, path) : undefined,
      takeFlash(db, request.backofficeSessionToken, `notice:${basePath}${path}`),
    ]);
    const form =
      version.status === 'draft'
        ? formFor(
            reply,
            template,
            version,
            kept ?? {
              tag: version.tag,
              content_html: version.content_html,
              file_url: version.file_url ?? '',
              allow_reconsent: version.allow_reconsent === 1,
            },
          )
        : undefined;
    return page(
      request,
      reply,
      `${template.code} ${version.tag}`,
      versionPage({ template, version, form: form && kept ? html`${keptNotice}${form}` : form }),
      200,
      notice === 'saved' && version.status === 'draft' ? 'Draft saved.' : undefined,
    );
  });

  app.post<{ Params: Params }>(
    '/templates/:code/versions/:id',
    {
      bodyLimit: versionBodyLimit,
      config: {
        formPage: (request) => versionPath(paramsOf(request).code, paramsOf(request).id),
      },
    },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const template = await getTemplateByCode(db, tenantId, request.params.code);
      const values = versionValues(request.body);
      try {
        await db.transaction().execute(async (trx) => {
          const row = await updateDraftVersion(trx, template, request.params.id, asInput(values));
          await recordAudit(trx, {
            ...auditBy(request),
            action: 'version.draft_updated',
            target: `${template.code} ${row.tag}`,
            details: { version_id: row.id, content_sha256: row.content_sha256 },
          });
        });
      } catch (error) {
        const refusal = refusalOf(error, versionMessages);
        if (!refusal) throw error;
        const version = await getVersion(db, template, request.params.id);
        const form = formFor(reply, template, version, values, refusal);
        return page(
          request,
          reply,
          `${template.code} ${version.tag}`,
          versionPage({ template, version, form }),
          version.status === 'draft' ? 400 : 409,
        );
      }
      return savedTo(request, reply, versionPath(template.code, request.params.id));
    },
  );

  app.get<{ Params: Params }>('/templates/:code/versions/:id/publish', async (request, reply) => {
    const { tenantId } = tenantOf(request);
    const template = await getTemplateByCode(db, tenantId, request.params.code);
    const draft = await getVersion(db, template, request.params.id);
    if (draft.status !== 'draft') {
      return redirectTo(reply, `/templates/${segment(template.code)}/versions/${draft.id}`);
    }
    const latest = await findLatestPublished(db, tenantId, template.code);
    const customersToPend = latest ? await countCustomersDecidedOn(db, tenantId, latest.id) : 0;
    return page(
      request,
      reply,
      `Publish ${draft.tag}`,
      publishConfirmation({
        template,
        draft,
        latest:
          latest && latest.version !== null
            ? { version: latest.version, tag: latest.tag }
            : undefined,
        nextNumber: (latest?.version ?? 0) + 1,
        customersToPend,
        csrfToken: csrfToken(reply),
      }),
    );
  });

  app.post<{ Params: Params }>('/templates/:code/versions/:id/publish', async (request, reply) => {
    const user = tenantOf(request);
    const template = await getTemplateByCode(db, user.tenantId, request.params.code);
    try {
      await db.transaction().execute(async (trx) => {
        const previous = await findLatestPublished(trx, user.tenantId, template.code);
        const pending = previous
          ? await countCustomersDecidedOn(trx, user.tenantId, previous.id)
          : 0;
        const published = await publishDraftById(trx, template, request.params.id, user.email);
        await recordAudit(trx, {
          ...auditBy(request),
          action: 'version.published',
          target: `${template.code} ${published.tag}`,
          details: {
            version_id: published.id,
            version: published.version,
            customers_made_pending: pending,
          },
        });
      });
    } catch (error) {
      // A draft the service will not publish (nothing visible in it): its form, with the reason.
      const refusal = refusalOf(error, versionMessages);
      const version = refusal && (await getVersion(db, template, request.params.id));
      if (!refusal || !version || version.status !== 'draft') throw error;
      const values = {
        tag: version.tag,
        content_html: version.content_html,
        file_url: version.file_url ?? '',
        allow_reconsent: version.allow_reconsent === 1,
      };
      const form = formFor(reply, template, version, values, refusal);
      return page(
        request,
        reply,
        `${template.code} ${version.tag}`,
        versionPage({ template, version, form }),
        400,
      );
    }
    return redirectTo(reply, `/templates/${segment(template.code)}?notice=published`);
  });
}
