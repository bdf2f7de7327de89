import { createPartner, listPartners, type PartnerRow } from '../partners/index.js';
import { getTenantByAlias } from '../tenants/index.js';
import { type Commands, commandLine, required } from './command.js';

/** A partner as the command line prints it: everything but the tenant. */
function printed({ tenant_id: _, ...partner }: PartnerRow) {
  return partner;
}

/** The `partner …` commands (a group of the command line's table): a tenant's register. */
export const partnerCommands: Commands = {
  'partner create': {
    options: ['tenant', 'code', 'name', 'purpose', 'country', 'policy-url'],
    run: (db, o) =>
      db.transaction().execute(async (trx) => {
        const tenant = await getTenantByAlias(trx, required(o, 'tenant'));
        const actor = { ...commandLine, tenantId: tenant.id };
        const partner = await createPartner(trx, actor, tenant.id, {
          code: required(o, 'code'),
          name: required(o, 'name'),
          ...(o.purpose === undefined ? {} : { purpose: o.purpose }),
          ...(o.country === undefined ? {} : { country: o.country }),
          ...(o['policy-url'] === undefined ? {} : { policy_url: o['policy-url'] }),
        });
        return printed(partner);
      }),
  },
  'partner list': {
    options: ['tenant'],
    run: async (db, o) => {
      const tenant = await getTenantByAlias(db, required(o, 'tenant'));
      const partners = await listPartners(db, tenant.id);
      return {
        partners: partners.map(({ release_count, ...partner }) => ({
          ...printed(partner),
          versions_listing: release_count,
        })),
      };
    },
  },
};
