import { createApiKey, listApiKeys, revokeApiKey } from '../api-keys/index.js';
import { getTenantByAlias } from '../tenants/index.js';
import { type Commands, required } from './command.js';

/** The `apikey …` commands (a group of the command line's table): a tenant's API keys. */
export const apiKeyCommands: Commands = {
  'apikey create': {
    options: ['tenant', 'name'],
    run: (db, o) =>
      db.transaction().execute(async (trx) => {
        const tenant = await getTenantByAlias(trx, required(o, 'tenant'));
        return createApiKey(trx, tenant.id, { name: required(o, 'name') });
      }),
  },
  'apikey revoke': {
    options: ['tenant', 'id'],
    run: (db, o) =>
      db.transaction().execute(async (trx) => {
        const tenant = await getTenantByAlias(trx, required(o, 'tenant'));
        return revokeApiKey(trx, tenant.id, required(o, 'id'));
      }),
  },
  'apikey list': {
    options: ['tenant'],
    run: async (db, o) => {
      const tenant = await getTenantByAlias(db, required(o, 'tenant'));
      // The keys' prefixes and last four characters only: a key's secret is shown once, at creation.
      return { keys: await listApiKeys(db, tenant.id) };
    },
  },
};
