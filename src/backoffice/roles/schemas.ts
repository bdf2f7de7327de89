import { Type } from 'typebox';
import { allPermissions } from '../../accounts/index.js';
import type { FormOptions } from '../web/forms.js';

export const RoleForm = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 60 }),
  description: Type.String({ maxLength: 200 }),
  permissions: Type.Array(Type.Union(allPermissions.map((p) => Type.Literal(p))), {
    maxItems: allPermissions.length,
  }),
});

export const roleFormOptions: FormOptions<typeof RoleForm> = {
  messages: {
    name: 'A name of 1 to 60 characters, other than those of the built-in roles.',
    description: 'At most 200 characters.',
    permissions: 'Only the permissions of the matrix.',
  },
  trim: ['name', 'description'],
};
