import { checkSigningKey, startEpoch } from '../decision-log/index.js';
import { getTenantByAlias } from '../tenants/index.js';
import { type Commands, required } from './command.js';

/** The `log` commands (a group of the command line's table): the decision log's epochs. */
export const logCommands: Commands = {
  'log new-epoch': {
    options: ['tenant'],
    run: async (db, o, config) => {
      const tenant = await getTenantByAlias(db, required(o, 'tenant'));
      const signer = await checkSigningKey(db, config, {
        warn: (details, message) => process.stderr.write(`${message}: ${details.file}\n`),
      });
      return startEpoch(db, tenant.id, signer, config.logCheckpointsFile);
    },
  },
};
