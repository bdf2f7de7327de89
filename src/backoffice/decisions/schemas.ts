import { Type } from 'typebox';
import { customerIdPattern } from '../../decisions/index.js';
import type { FormOptions } from '../web/forms.js';

const dayOrNothing = Type.String({ pattern: '^(\\d{4}-\\d{2}-\\d{2})?$' });

/** The Decisions list's filters (a query string), each empty for "any". */
export const DecisionFilterForm = Type.Object({
  product: Type.String(),
  template: Type.String(),
  version: Type.String({ pattern: '^([1-9]\\d{0,8})?$' }),
  decision: Type.Union([
    Type.Literal(''),
    Type.Literal('given'),
    Type.Literal('reject'),
    Type.Literal('withdraw'),
  ]),
  key: Type.String(),
  locale: Type.String({ maxLength: 35 }),
  // A customer id as the API takes it (the customer look-up's rule), or nothing.
  customer: Type.String({ pattern: `^$|${customerIdPattern}` }),
  from: dayOrNothing,
  to: dayOrNothing,
});

export const decisionFilterOptions: FormOptions<typeof DecisionFilterForm> = {
  messages: {
    version: 'A version number, such as 2, or nothing.',
    decision: 'given, reject or withdraw, or nothing.',
    from: 'A day of the calendar, or nothing.',
    to: 'A day of the calendar, or nothing.',
    customer: 'A customer id is 1 to 128 of A-Z a-z 0-9 . _ : @ + -, or nothing.',
  },
  trim: ['product', 'template', 'version', 'key', 'locale', 'customer', 'from', 'to'],
};
