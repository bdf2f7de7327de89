import { setPublicBaseUrl, storedPublicBaseUrl } from '../platform/public-base-url.js';
import type { Commands } from './command.js';

/** The `settings …` commands: the service's own settings kept with its store. */
export const settingsCommands: Commands = {
  'settings public-base-url': {
    options: ['url'],
    run: async (db, o) => ({
      public_base_url:
        o.url === undefined
          ? ((await storedPublicBaseUrl(db)) ?? null)
          : await setPublicBaseUrl(db, o.url),
    }),
  },
};
