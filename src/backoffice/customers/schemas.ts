import { Type } from 'typebox';
import { customerIdPattern } from '../../decisions/index.js';
import type { FormOptions } from '../web/forms.js';

const invalidId = 'A customer id is 1 to 128 of A-Z a-z 0-9 . _ : @ + -';

/** The look-up (a query string) and the erasure's first step: one customer id. */
export const CustomerForm = Type.Object({
  customer_id: Type.String({ pattern: customerIdPattern }),
});
export const customerFormOptions: FormOptions<typeof CustomerForm> = {
  messages: { customer_id: invalidId },
  trim: ['customer_id'],
};

/** Erasing: the customer id, and the same id typed again to confirm. */
export const ErasureForm = Type.Object({
  customer_id: Type.String({ pattern: customerIdPattern }),
  confirm: Type.String(),
});
export const erasureFormOptions: FormOptions<typeof ErasureForm> = {
  messages: { customer_id: invalidId },
  trim: ['customer_id', 'confirm'],
};

/** Blocking or allowing one of the customer's channels, from their page. */
export const ChannelChangeForm = Type.Object({
  customer_id: Type.String({ pattern: customerIdPattern }),
  product_code: Type.String({ minLength: 1, maxLength: 64 }),
  channel: Type.String({ minLength: 1, maxLength: 64 }),
  blocked: Type.Union([Type.Literal('true'), Type.Literal('false')]),
});
export const channelChangeFormOptions: FormOptions<typeof ChannelChangeForm> = {
  messages: { customer_id: invalidId },
  trim: ['customer_id'],
};
