import { getPreferenceCentre, setAllowedOrigins } from '../preference-centre/index.js';
import { getTenantByAlias } from '../tenants/index.js';
import { type Commands, commandLine, required, values } from './command.js';

/** The settings as the command line prints them (snake case, as the API's bodies). */
function shown(settings: Awaited<ReturnType<typeof getPreferenceCentre>>) {
  return {
    display_name: settings.displayName,
    logo_url: settings.logoUrl,
    accent_colour: settings.accentColour,
    header_colour: settings.headerColour,
    allowed_origins: settings.allowedOrigins,
    email_key_id: settings.emailKeyId,
  };
}

/** The `preference-centre …` commands (a group of the command line's table). */
export const preferenceCentreCommands: Commands = {
  'preference-centre show': {
    options: ['tenant'],
    run: async (db, o) => {
      const tenant = await getTenantByAlias(db, required(o, 'tenant'));
      return shown(await getPreferenceCentre(db, tenant.id));
    },
  },
  'preference-centre origins': {
    options: ['tenant', 'origin'],
    run: (db, o) =>
      db.transaction().execute(async (trx) => {
        const tenant = await getTenantByAlias(trx, required(o, 'tenant'));
        const actor = { ...commandLine, tenantId: tenant.id };
        // None at all clears the list.
        return shown(await setAllowedOrigins(trx, actor, tenant.id, values(o, 'origin')));
      }),
  },
};
