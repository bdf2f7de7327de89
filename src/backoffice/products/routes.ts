import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../platform/db.js';
import type { ProductRow } from '../../products/index.js';
import {
  changeProduct,
  createProduct,
  getProduct,
  listProducts,
  setProductArchived,
} from '../../products/index.js';
import { listTemplates } from '../../templates/index.js';
import { auditBy, tenantOf } from '../web/context.js';
import { noRefusal, parseForm, type Refusal, refusalOf } from '../web/forms.js';
import { segment } from '../web/html.js';
import { csrfToken, redirectTo, sectionPage } from '../web/layout.js';
import { ProductForm, productFormOptions } from './schemas.js';
import { newProductForm, productList, productPage } from './views.js';

type Params = { code: string };

const notices: Record<string, string> = {
  created: 'Product created.',
  saved: 'Product saved.',
  archived: 'Product archived: it takes no new template.',
  restored: 'Product restored.',
};

const { messages } = productFormOptions;

/** The form's fields as sent (the service checks them). */
const valuesOf = (body: unknown) => {
  const { input } = parseForm(ProductForm, body, productFormOptions);
  return { code: input.code ?? '', name: input.name ?? '', description: input.description ?? '' };
};

/** Products: listed to those who see templates, made and changed by those who make templates. */
export async function productRoutes(app: FastifyInstance, { db }: { db: Db }) {
  const page = sectionPage('products', notices);

  app.get('/products', { config: { permission: 'templates:view' } }, async (request, reply) => {
    const user = tenantOf(request);
    const products = await listProducts(db, user.tenantId);
    const body = productList(products, user.permissions.has('templates:create'));
    return page(request, reply, 'Products', body);
  });

  const showNew = (
    request: FastifyRequest,
    reply: FastifyReply,
    values: ReturnType<typeof valuesOf>,
    refusal: Refusal = noRefusal,
  ) =>
    page(
      request,
      reply,
      'New product',
      newProductForm({
        csrfToken: csrfToken(reply),
        values,
        errors: refusal.form,
        fieldErrors: refusal.fields,
      }),
      refusal === noRefusal ? 200 : 400,
    );

  app.get('/products/new', { config: { permission: 'templates:create' } }, (request, reply) =>
    showNew(request, reply, { code: '', name: '', description: '' }),
  );

  app.post('/products', { config: { permission: 'templates:create' } }, async (request, reply) => {
    const { tenantId } = tenantOf(request);
    const values = valuesOf(request.body);
    try {
      await db
        .transaction()
        .execute((trx) => createProduct(trx, auditBy(request), tenantId, values));
    } catch (error) {
      const refusal = refusalOf(error, messages);
      if (!refusal) throw error;
      return showNew(request, reply, values, refusal);
    }
    return redirectTo(reply, `/products/${segment(values.code)}?notice=created`);
  });

  const show = async (
    request: FastifyRequest,
    reply: FastifyReply,
    product: ProductRow,
    values = { code: product.code, name: product.name, description: product.description },
    refusal: Refusal = noRefusal,
  ) => {
    const user = tenantOf(request);
    const templates = await listTemplates(db, user.tenantId, product.id);
    const body = productPage(product, {
      csrfToken: csrfToken(reply),
      values,
      errors: refusal.form,
      fieldErrors: refusal.fields,
      templates,
      zone: user.timeZone,
      mayEdit: user.permissions.has('templates:create'),
    });
    return page(request, reply, product.name, body, refusal === noRefusal ? 200 : 400);
  };

  app.get<{ Params: Params }>(
    '/products/:code',
    { config: { permission: 'templates:view' } },
    async (request, reply) =>
      show(request, reply, await getProduct(db, tenantOf(request).tenantId, request.params.code)),
  );

  app.post<{ Params: Params }>(
    '/products/:code',
    { config: { permission: 'templates:create' } },
    async (request, reply) => {
      const { tenantId } = tenantOf(request);
      const product = await getProduct(db, tenantId, request.params.code);
      const values = { ...valuesOf(request.body), code: product.code };
      const changes = { name: values.name, description: values.description };
      try {
        await db
          .transaction()
          .execute((trx) => changeProduct(trx, auditBy(request), tenantId, product.code, changes));
      } catch (error) {
        const refusal = refusalOf(error, messages);
        if (!refusal) throw error;
        return show(request, reply, product, values, refusal);
      }
      return redirectTo(reply, `/products/${segment(product.code)}?notice=saved`);
    },
  );

  for (const [path, archived] of [
    ['archive', true],
    ['restore', false],
  ] as const) {
    app.post<{ Params: Params }>(
      `/products/:code/${path}`,
      { config: { permission: 'templates:create' } },
      async (request, reply) => {
        const { tenantId } = tenantOf(request);
        const product = await db
          .transaction()
          .execute((trx) =>
            setProductArchived(trx, auditBy(request), tenantId, request.params.code, archived),
          );
        return redirectTo(
          reply,
          `/products/${segment(product.code)}?notice=${archived ? 'archived' : 'restored'}`,
        );
      },
    );
  }
}
