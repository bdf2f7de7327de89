import { createTenantChannel, tenantChannels } from '../channels/index.js';
import { getTenantByAlias } from '../tenants/index.js';
import { type Commands, commandLine, required } from './command.js';

/** The `channel …` commands (a group of the command line's table): a tenant's own channels. */
export const channelCommands: Commands = {
  'channel create': {
    options: ['tenant', 'code', 'name'],
    run: (db, o) =>
      db.transaction().execute(async (trx) => {
        const tenant = await getTenantByAlias(trx, required(o, 'tenant'));
        const actor = { ...commandLine, tenantId: tenant.id };
        const channel = await createTenantChannel(trx, actor, tenant.id, {
          code: required(o, 'code'),
          name: required(o, 'name'),
        });
        return { code: channel.code, name: channel.name, created_at: channel.createdAt };
      }),
  },
  'channel list': {
    options: ['tenant'],
    run: async (db, o) => {
      const tenant = await getTenantByAlias(db, required(o, 'tenant'));
      const channels = await tenantChannels(db, tenant.id);
      return {
        channels: channels.map((c) => ({
          code: c.code,
          name: c.name,
          built_in: c.builtIn,
          created_at: c.createdAt,
        })),
      };
    },
  },
};
