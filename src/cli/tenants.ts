import {
  addTenantWithAdmin,
  passwordLinkUrl,
  prepareTenantRegistration,
  registerTenant,
} from '../accounts/index.js';
import { listTenants } from '../tenants/index.js';
import { type Commands, commandLine, required, UsageError } from './command.js';

/** The `tenant …` command (a group of the command line's table): a tenant and its first admin. */
export const tenantCommands: Commands = {
  'tenant create': {
    options: ['alias', 'email', 'password', 'name'],
    run: async (db, o, config) => {
      const alias = required(o, 'alias');
      const email = required(o, 'email');
      if (o.password !== undefined && o.name !== undefined) {
        throw new UsageError('Give --password or --name, not both.');
      }
      if (o.password === undefined && o.name === undefined) {
        throw new UsageError('Missing --password or --name (to invite the first admin).');
      }
      if (o.name !== undefined) {
        // The first admin invited, as the operator's page does: they set their own password
        // with the link, which is printed here once (the command line sends no e-mail).
        const input = { alias, email, name: o.name };
        const { tenant, token } = await db
          .transaction()
          .execute((trx) => registerTenant(trx, input, { ...commandLine, tenantId: null }));
        return { ...tenant, invitation_url: passwordLinkUrl(config.publicBaseUrl, token) };
      }
      const registration = await prepareTenantRegistration(
        { alias, email, password: o.password },
        config.passwordHashCost,
      );
      return db.transaction().execute((trx) => addTenantWithAdmin(trx, registration));
    },
  },
  'tenant list': {
    options: [],
    run: async (db) => ({
      tenants: (await listTenants(db)).map(({ id, alias, email, created_at }) => ({
        id,
        alias,
        email,
        created_at,
      })),
    }),
  },
};
