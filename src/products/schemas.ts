import { type Static, Type } from 'typebox';

/** Product codes read like template codes: what a system or a report may name them by. */
export const productCodePattern = '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$';

export const NewProduct = Type.Object(
  {
    code: Type.String({ pattern: productCodePattern }),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);
export type NewProduct = Static<typeof NewProduct>;

export const ProductChanges = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);
export type ProductChanges = Static<typeof ProductChanges>;
