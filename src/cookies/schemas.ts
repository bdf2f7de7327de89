import { Type } from 'typebox';
import { uuidPattern } from '../platform/ids.js';
import { categoryKeyPattern } from './content.js';

const uuid = Type.String({ pattern: uuidPattern });

/** The body of a visitor's choice (`ChoiceBody` in banner-config.ts), as the service checks it. */
/** How a visitor chose: a button of the banner, or the browser's Global Privacy Control. */
export const ChoiceMethodSchema = Type.Union([
  Type.Literal('accept-all'),
  Type.Literal('reject-all'),
  Type.Literal('custom'),
  Type.Literal('gpc'),
]);

export const ChoiceBodySchema = Type.Object(
  {
    event_id: uuid,
    visitor_id: uuid,
    configuration_id: uuid,
    configuration_version: Type.Integer({ minimum: 1 }),
    method: ChoiceMethodSchema,
    categories: Type.Record(Type.String({ pattern: categoryKeyPattern }), Type.Boolean(), {
      maxProperties: 20,
    }),
    locale: Type.String({ minLength: 1, maxLength: 35 }),
  },
  { additionalProperties: false },
);
