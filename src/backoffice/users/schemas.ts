import { Type } from 'typebox';
import type { FormOptions } from '../web/forms.js';

const Name = Type.String({ minLength: 1, maxLength: 100 });
/** Role ids: built-in codes (`admin`) or a tenant role's UUID. */
const Roles = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
  minItems: 1,
  maxItems: 50,
});

export const InviteForm = Type.Object({
  name: Name,
  email: Type.String({ pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$', maxLength: 254 }),
  roles: Roles,
});

export const inviteFormOptions: FormOptions<typeof InviteForm> = {
  messages: {
    name: 'A name of 1 to 100 characters, as the team knows this person.',
    email: 'An e-mail address, such as jane@example.com.',
    roles: 'Choose at least one role.',
  },
  trim: ['name', 'email'],
};

export const UserForm = Type.Object({ name: Name, roles: Roles });

export const userFormOptions: FormOptions<typeof UserForm> = {
  messages: {
    name: 'A name of 1 to 100 characters.',
    roles: 'Choose at least one role.',
  },
  trim: ['name'],
};
