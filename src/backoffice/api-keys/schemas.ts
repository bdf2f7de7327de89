import type { NewApiKey } from '../../api-keys/index.js';
import type { FormOptions } from '../web/forms.js';

/** The new-key form is checked with the very schema the api-keys service checks. */
export const newApiKeyFormOptions: FormOptions<typeof NewApiKey> = {
  messages: {
    name: 'A name of 1 to 100 characters, so that you know which system uses the key.',
  },
  trim: ['name'],
};
