import { eraseCustomer } from '../erasure/index.js';
import { getTenantByAlias } from '../tenants/index.js';
import { type Commands, commandLine, required } from './command.js';

/** The `customer erase` command (a group of the command line's table). */
export const erasureCommands: Commands = {
  'customer erase': {
    options: ['tenant', 'customer'],
    run: async (db, o, _config, vault, registry) => {
      const tenant = await getTenantByAlias(db, required(o, 'tenant'));
      return eraseCustomer(db, vault, registry, tenant.id, required(o, 'customer'), commandLine);
    },
  },
};
