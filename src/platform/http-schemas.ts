import { type TSchema, Type } from 'typebox';
import { type ErrorName, errors } from './errors.js';

/** The error body of contract section 2, for every route's 4xx/5xx responses. */
export const ErrorResponse = Type.Object(
  {
    code: Type.String({ pattern: '^\\d+$', examples: ['1002'] }),
    message: Type.String({ examples: ['Unauthorized.'] }),
    details: Type.Optional(Type.Array(Type.Object({ field: Type.String(), issue: Type.String() }))),
  },
  { description: 'Error: a code from the catalogue and a short sentence.' },
);

/** Why each status is answered, as the document says it (contract section 3). */
const statusReasons: Record<number, string> = {
  400: 'Invalid request: a parameter, header or body that fails validation, or malformed JSON',
  401: 'Unauthorized: a missing, unknown or revoked API key',
  403: 'Not available to this caller',
  404: 'Not found',
  409: 'A decision the rules refuse',
  413: 'Payload too large: a body over 16 KiB',
  415: 'Unsupported media type: a body that is not JSON',
  422: 'Idempotency key reused with a different request',
  429: 'Too many requests: the rate limit of the API key, or failed key checks from the address',
  500: 'Internal server error',
  503: 'Service unavailable: the store does not answer, or the service is shutting down',
};

/** Headers that some error answers carry, by status. */
const errorHeaders: Record<number, Record<string, TSchema>> = {
  429: { 'retry-after': Type.Integer({ minimum: 1, description: 'Seconds to wait.' }) },
  503: {
    'retry-after': Type.Integer({
      minimum: 1,
      description: 'Seconds to wait (sent when the store refused the request).',
    }),
  },
};

/**
 * The error answers an operation may give, one entry per status: the error body with the codes
 * and messages of the catalogue entries named, so that the document lists each one. The body is
 * `ErrorResponse` with the same properties in the same order, so an answer serialized with it is
 * byte for byte what the error handler sends.
 */
export function errorsOf(...names: ErrorName[]): Record<number, ErrorAnswer> {
  const byStatus = new Map<number, { codes: Set<string>; messages: Set<string> }>();
  for (const name of names) {
    const { status, code, message } = errors[name];
    const entry = byStatus.get(status) ?? { codes: new Set(), messages: new Set() };
    entry.codes.add(code);
    entry.messages.add(message);
    byStatus.set(status, entry);
  }
  const responses: Record<number, ErrorAnswer> = {};
  for (const [status, { codes, messages }] of [...byStatus].sort(([a], [b]) => a - b)) {
    const codeList = [...codes];
    const messageList = [...messages];
    const quoted = messageList.map((message) => `\`${message}\``).join(', ');
    const body = Type.Object(
      {
        code: Type.String({ enum: codeList, examples: codeList }),
        message: Type.String({ examples: messageList }),
        details: ErrorResponse.properties.details,
      },
      {
        description: `${statusReasons[status] ?? 'Error'}: code ${codeList.join(', ')} (${quoted}).`,
        ...(errorHeaders[status] ? { headers: errorHeaders[status] } : {}),
      },
    );
    responses[status] = body as TSchema as ErrorAnswer;
  }
  return responses;
}

/**
 * `errorsOf`'s answers with one status's reason said as this operation has it (its own body
 * limit, say), the codes and messages kept.
 */
export function withReason(
  responses: Record<number, ErrorAnswer>,
  status: number,
  reason: string,
): Record<number, ErrorAnswer> {
  const answer = responses[status];
  if (!answer) throw new Error(`no ${status} answer to give a reason`);
  const rest = answer.description.slice(answer.description.indexOf(': code '));
  return { ...responses, [status]: { ...answer, description: `${reason}${rest}` } };
}

/** An error answer's schema, with the description the document shows. */
export type ErrorAnswer = TSchema & { description: string };

/** What every `/api/v1` operation that takes a key may answer, whatever it does. */
export const keyedErrors = ['unauthorized', 'tooManyRequests', 'internal', 'unavailable'] as const;

/** Envelope `{"data": T}` of every success body but the health check's. */
export function dataOf<T extends ReturnType<typeof Type.Object>>(schema: T) {
  return Type.Object({ data: schema });
}

/**
 * An answer's schema with what the document says of it: a description and the headers it carries
 * (beside those of every answer, which `openapi.ts` adds). Neither changes what is serialized.
 */
export function answer<T extends TSchema>(
  schema: T,
  description: string,
  headers: Record<string, TSchema> = {},
): T {
  return { ...schema, description, ...(Object.keys(headers).length > 0 ? { headers } : {}) } as T;
}

export const apiKeySecurity = [{ apiKey: [] }];

/** The security of an operation that needs no key (the health check, the content files). */
export const noSecurity: Record<string, string[]>[] = [];

/**
 * A query parameter that is a whole number. Query values are strings and are never coerced, so
 * it is validated as digits; the document shows it as the integer it means (`openapi.ts` reads
 * this mark, which the validator does not see).
 */
export function integerQuery(options: {
  pattern: string;
  minimum: number;
  maximum?: number;
  description: string;
  examples?: string[];
}) {
  const { pattern, minimum, maximum, description, examples } = options;
  const schema = Type.String({ pattern, description, ...(examples ? { examples } : {}) });
  const documented = {
    type: 'integer',
    minimum,
    ...(maximum === undefined ? {} : { maximum }),
    description,
    ...(examples ? { examples: examples.map(Number) } : {}),
  };
  return Object.assign(schema, { [documentedAs]: documented });
}

/**
 * RFC 3339: a full date and time with seconds and a time zone (`Z` or `±hh:mm`), as every
 * moment a query or body names is read (`as-of`'s `at`, a list's `from` and `to`).
 */
export const dateTimePattern =
  '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-5][0-9](?:\\.[0-9]{1,9})?(?:Z|[+-][0-9]{2}:[0-9]{2})$';

/** Marks a schema with the schema the document shows in its place. */
export const documentedAs = Symbol.for('consent-service.documentedAs');

/** Response headers some operations document, by name. */
export const responseHeaders = {
  etag: Type.String({
    description:
      'A strong tag of the exact body: sent back as `If-None-Match`, it is answered `304` while ' +
      'it is current.',
  }),
  contentLanguage: Type.String({
    description: 'The locale of the variant answered (BCP 47), when the request named a locale.',
  }),
  idempotentReplayed: Type.String({
    enum: ['true'],
    description:
      'Present when an `Idempotency-Key` seen before answered the first response again: nothing ' +
      'new was stored.',
  }),
  retryAfter: Type.Integer({ minimum: 1, description: 'Seconds to wait before asking again.' }),
};
