import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../platform/db.js';
import { AppError } from '../../platform/errors.js';
import { listProducts } from '../../products/index.js';
import {
  createDraftAs,
  createTemplateAs,
  getTemplateByCode,
  listTemplates,
} from '../../templates/index.js';
import { productChoice } from '../products/choice.js';
import { auditBy, tenantOf } from '../web/context.js';
import {
  type FormInput,
  noRefusal,
  parseForm,
  queryOf,
  type Refusal,
  refusalOf,
} from '../web/forms.js';
import { segment } from '../web/html.js';
import { csrfToken, redirectTo } from '../web/layout.js';
import { type DraftValues, draftInput, readDraft, savedTo } from './draft-form.js';
import { templateListItem } from './models.js';
import { versionPath } from './review-views.js';
import { NewTemplateForm, newTemplateFormOptions, versionFormOptions } from './schemas.js';
import { authorOf, templatesPage } from './section.js';
import { newTemplateForm, templateList } from './views.js';

/** The new-template form's own fields as sent, to show it again. */
function newTemplateValues(input: FormInput<typeof NewTemplateForm>) {
  return {
    code: input.code ?? '',
    name: input.name ?? '',
    description: input.description ?? '',
    product: input.product ?? '',
    locale: input.locale ?? '',
  };
}

/** The fields of its first draft, as the form shows them. */
function firstDraftValues(first: DraftValues) {
  return {
    tag: first.tag,
    content_html: first.content_html,
    allow_reconsent: String(first.allow_reconsent),
  };
}

/** The new-template form, with what was sent and why it was refused (400) when it was. */
async function showNewTemplate(
  db: Db,
  request: FastifyRequest,
  reply: FastifyReply,
  values: Record<string, string>,
  refusal: Refusal = noRefusal,
) {
  const user = tenantOf(request);
  const products = await listProducts(db, user.tenantId);
  return templatesPage(
    request,
    reply,
    'New template',
    newTemplateForm({
      csrfToken: csrfToken(reply),
      values,
      products: products.filter((p) => p.archived_at === null),
      mayDraft: user.permissions.has('versions:create'),
      errors: refusal.form,
      fieldErrors: refusal.fields,
    }),
    refusal.form.length + Object.keys(refusal.fields).length > 0 ? 400 : 200,
  );
}

/** The list of templates, and the form of a new one (with its first draft, if written). */
export async function templateListRoutes(app: FastifyInstance, { db }: { db: Db }) {
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
    return templatesPage(request, reply, 'Templates', list);
  });

  app.get(
    '/templates/new',
    { config: { permission: 'templates:create' } },
    async (request, reply) =>
      showNewTemplate(db, request, reply, {
        code: '',
        name: '',
        description: '',
        product: queryOf(request.query, 'product'),
      }),
  );

  app.post('/templates', { config: { permission: 'templates:create' } }, async (request, reply) => {
    const { tenantId } = tenantOf(request);
    const form = parseForm(NewTemplateForm, request.body, newTemplateFormOptions);
    const first = readDraft(request.body);
    const values = { ...newTemplateValues(form.input), ...firstDraftValues(first) };
    if (!form.ok) return showNewTemplate(db, request, reply, values, form.refusal);
    const { product, locale, ...rest } = form.values;
    const fields = {
      ...rest,
      ...(product === '' ? {} : { product }),
      ...(locale === '' ? {} : { locale }),
    };
    // A first version is written when either of its fields is: both are then required.
    const draft = first.tag !== '' || first.content_html.trim() !== '' ? first : undefined;
    if (draft && !tenantOf(request).permissions.has('versions:create')) {
      throw new AppError('forbidden', { message: 'Writing a version needs versions:create.' });
    }
    let draftId: string | undefined;
    try {
      draftId = await db.transaction().execute(async (trx) => {
        const author = authorOf(request);
        await createTemplateAs(trx, auditBy(request), tenantId, fields);
        if (!draft) return undefined;
        const template = await getTemplateByCode(trx, tenantId, fields.code);
        return (await createDraftAs(trx, author, template, draftInput(draft))).id;
      });
    } catch (error) {
      const refusal = refusalOf(error, {
        ...newTemplateFormOptions.messages,
        ...versionFormOptions.messages,
      });
      if (!refusal) throw error;
      return showNewTemplate(db, request, reply, values, refusal);
    }
    if (draftId) return savedTo(db, request, reply, versionPath(values.code, draftId));
    return redirectTo(reply, `/templates/${segment(values.code)}?notice=created`);
  });
}
