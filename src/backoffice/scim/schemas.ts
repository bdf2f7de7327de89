import type { NewScimToken } from '../../scim/index.js';
import type { FormOptions } from '../web/forms.js';

/** The new-token form is checked with the very schema the scim service checks. */
export const newScimTokenFormOptions: FormOptions<typeof NewScimToken> = {
  messages: {
    name: 'A name of 1 to 100 characters, such as "Entra ID", so that you know who uses the token.',
  },
  trim: ['name'],
};
