import type { TenantInvitation } from '../../accounts/index.js';
import type { FormOptions } from '../web/forms.js';

/** The operator's form registers a tenant with the very schema the accounts service checks. */
export const newTenantFormOptions: FormOptions<typeof TenantInvitation> = {
  messages: {
    alias: 'Letters, digits, "_", "." and "-", starting with a letter or digit; at most 64.',
    name: "The admin's name, 1 to 100 characters.",
    email: 'An e-mail address such as compliance@example.com.',
  },
  trim: ['alias', 'name', 'email'],
};
