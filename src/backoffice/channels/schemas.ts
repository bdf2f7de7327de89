import { Type } from 'typebox';
import type { FormOptions } from '../web/forms.js';

/** A channel of the tenant's own; the channels service checks it, its refusals go to these fields. */
export const TenantChannelForm = Type.Object({
  code: Type.String(),
  name: Type.String(),
});

export const tenantChannelFormOptions: FormOptions<typeof TenantChannelForm> = {
  messages: {
    code: 'A lowercase code of letters, digits and -, at most 64, other than email, sms, push, phone and post.',
    name: 'A name of 1 to 200 characters.',
  },
  trim: ['code', 'name'],
};
