import { createProduct, listProducts } from '../products/index.js';
import { getTenantByAlias } from '../tenants/index.js';
import { type Commands, commandLine, required } from './command.js';

/** The `product …` command (a group of the command line's table): a tenant's product. */
export const productCommands: Commands = {
  'product create': {
    options: ['tenant', 'code', 'name', 'description'],
    run: (db, o) =>
      db.transaction().execute(async (trx) => {
        const tenant = await getTenantByAlias(trx, required(o, 'tenant'));
        const actor = { ...commandLine, tenantId: tenant.id };
        const product = await createProduct(trx, actor, tenant.id, {
          code: required(o, 'code'),
          name: required(o, 'name'),
          ...(o.description === undefined ? {} : { description: o.description }),
        });
        return { id: product.id, code: product.code, name: product.name };
      }),
  },
  'product list': {
    options: ['tenant'],
    run: async (db, o) => {
      const tenant = await getTenantByAlias(db, required(o, 'tenant'));
      const products = await listProducts(db, tenant.id);
      return {
        products: products.map((p) => ({
          code: p.code,
          name: p.name,
          description: p.description,
          template_count: p.template_count,
          created_at: p.created_at,
          archived_at: p.archived_at,
        })),
      };
    },
  },
};
