import { Type } from 'typebox';
import type { FormOptions } from '../web/forms.js';

/** The single sign-on settings form: texts, and checkboxes on when they send `true`. */
export const SsoForm = Type.Object({
  issuer: Type.String({ maxLength: 500 }),
  client_id: Type.String({ maxLength: 200 }),
  client_secret: Type.String({ maxLength: 1000 }),
  email_claim: Type.String({ maxLength: 100 }),
  groups_claim: Type.String({ maxLength: 100 }),
  group_roles: Type.String({ maxLength: 20_000 }),
  create_users: Type.String(),
  required: Type.String(),
  break_glass_user_id: Type.String({ maxLength: 64 }),
});

export const ssoFormOptions: FormOptions<typeof SsoForm> = {
  messages: {
    issuer: 'At most 500 characters.',
    client_id: 'At most 200 characters.',
    client_secret: 'At most 1000 characters.',
    email_claim: 'At most 100 characters.',
    groups_claim: 'At most 100 characters.',
    group_roles: 'At most 20,000 characters.',
  },
  trim: ['issuer', 'client_id', 'email_claim', 'groups_claim'],
};
