import { Type } from 'typebox';
import type { FormOptions } from '../web/forms.js';

/** A product's form; the products service checks it, and its refusals go to these fields. */
export const ProductForm = Type.Object({
  code: Type.String(),
  name: Type.String(),
  description: Type.String(),
});

export const productFormOptions: FormOptions<typeof ProductForm> = {
  messages: {
    code: 'A code of letters, digits, _ . and -, starting with a letter or digit, at most 64.',
    name: 'A name of 1 to 200 characters.',
    description: 'At most 2,000 characters.',
  },
  trim: ['code', 'name'],
};
