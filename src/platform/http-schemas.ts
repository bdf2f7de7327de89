import { Type } from 'typebox';

/** The error body of contract section 2, for every route's 4xx/5xx responses. */
export const ErrorResponse = Type.Object(
  {
    code: Type.String({ pattern: '^\\d+$', examples: ['1002'] }),
    message: Type.String({ examples: ['Unauthorized.'] }),
    details: Type.Optional(Type.Array(Type.Object({ field: Type.String(), issue: Type.String() }))),
  },
  { description: 'Error: a code from the catalogue and a short sentence.' },
);

export const errorResponses = {
  '4xx': ErrorResponse,
  '5xx': ErrorResponse,
} as const;

/** Envelope `{"data": T}` of every success body but the health check's. */
export function dataOf<T extends ReturnType<typeof Type.Object>>(schema: T) {
  return Type.Object({ data: schema });
}

export const apiKeySecurity = [{ apiKey: [] }];
