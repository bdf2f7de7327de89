import type { NewTenant } from '../../tenants/index.js';
import type { FormOptions } from '../web/forms.js';

/** The operator's form registers a tenant with the very schema the tenants service checks. */
export const newTenantFormOptions: FormOptions<typeof NewTenant> = {
  messages: {
    alias: 'Letters, digits, "_", "." and "-", starting with a letter or digit; at most 64.',
    email: 'An e-mail address such as compliance@example.com.',
    password: 'At least 10 characters (at most 256).',
  },
  trim: ['alias', 'email'],
};
