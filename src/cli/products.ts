import { createProduct } from '../products/index.js';
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
};
