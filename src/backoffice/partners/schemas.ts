import { Type } from 'typebox';
import type { FormOptions } from '../web/forms.js';

/** A partner's form; the partners service checks it, and its refusals go to these fields. */
export const PartnerForm = Type.Object({
  code: Type.String(),
  name: Type.String(),
  purpose: Type.String(),
  country: Type.String(),
  policy_url: Type.String(),
});

export const partnerFormOptions: FormOptions<typeof PartnerForm> = {
  messages: {
    code: 'A code of lowercase letters, digits and -, starting and ending with a letter or digit, at most 64.',
    name: 'A name of 1 to 200 characters.',
    purpose: 'At most 2,000 characters.',
    country: 'A two-letter ISO 3166-1 country code, such as TH or DE.',
    policy_url: 'An address starting with https://.',
  },
  trim: ['code', 'name', 'country', 'policy_url'],
};
