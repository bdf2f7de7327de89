import { Type } from 'typebox';
import type { FormOptions } from '../web/forms.js';

export const OperatorInviteForm = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  email: Type.String({ pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$', maxLength: 254 }),
});

export const operatorInviteOptions: FormOptions<typeof OperatorInviteForm> = {
  messages: {
    name: 'A name of 1 to 100 characters.',
    email: 'An e-mail address, such as ops@example.com.',
  },
  trim: ['name', 'email'],
};
