import { type Static, Type } from 'typebox';
import { LogCheckpoint } from '../decision-log/index.js';
import { CustomerIdParam, DecisionValue, lapseFields } from '../decisions/index.js';
import { AppError } from '../platform/errors.js';
import { dateTimePattern } from '../platform/http-schemas.js';
import { productCodePattern } from '../products/index.js';
import { TemplateCodeParam } from '../templates/index.js';

/** Most customers one request may ask about; more is `413 1006`. */
export const maxCustomers = 1000;

/** The `413 1006` of more than `maxCustomers` ids, its details saying the limit. */
export function tooManyCustomers(): AppError {
  return new AppError('payloadTooLarge', {
    details: [{ field: 'body.customer_ids', issue: `at most ${maxCustomers} ids in one request` }],
  });
}

/**
 * The body may hold 1,000 ids of 128 characters each, quoted and separated, with room for the
 * rest: the service's 16 KiB limit of other bodies would stop at about 400 ids.
 */
export const statusBodyLimit = 256 * 1024;

export const StatusRequest = Type.Object(
  {
    template_code: TemplateCodeParam,
    customer_ids: Type.Array(CustomerIdParam, {
      minItems: 1,
      // More is refused as the body's size (413) before the body is validated.
      maxItems: maxCustomers,
      description:
        `1 to ${maxCustomers} customer ids (more: \`413 1006\`). An id repeated is answered ` +
        'once, where it first appears.',
    }),
    channel: Type.Optional(
      Type.Object(
        {
          product_code: Type.String({ pattern: productCodePattern }),
          channel: Type.String({
            minLength: 1,
            maxLength: 64,
            description: '`email`, `sms`, `push`, `phone` or `post`',
          }),
        },
        {
          additionalProperties: false,
          description: 'Also say whether this channel of this product may be used for each.',
        },
      ),
    ),
    at: Type.Optional(
      Type.String({
        // The pattern fixes the shape; the format rejects impossible dates (February 30).
        format: 'date-time',
        pattern: dateTimePattern,
        description: 'The moment to answer for (default: now), with a time zone.',
        examples: ['2026-11-20T22:51:59.308Z'],
      }),
    ),
  },
  { additionalProperties: false },
);
export type StatusRequest = Static<typeof StatusRequest>;

const LastDecision = Type.Union(
  [
    Type.Object({
      decision_id: Type.String({ format: 'uuid' }),
      decision: DecisionValue,
      decided_at: Type.String({ format: 'date-time' }),
      consent_version_id: Type.String({ format: 'uuid' }),
      version: Type.Integer({ minimum: 1 }),
    }),
    Type.Null(),
  ],
  {
    description:
      'The most recent decision on the template made at or before `at`, on any version (as ' +
      '`as-of`); null for a customer never asked, unknown or erased.',
  },
);

export const CustomerStatus = Type.Object({
  customer_id: Type.String(),
  accepted: Type.Boolean({
    description:
      'As `as-of` says it: true when the customer had decided on the latest version published ' +
      'by `at` (any decision, as `pending`), and that decision was not a `given` lapsed by ' +
      '`at`. Whether they consented is `last_decision.decision`.',
  }),
  last_decision: LastDecision,
  // Of the most recent decision on the latest version by `at`, as `as-of` says them.
  ...lapseFields(),
  blocked_partners: Type.Array(Type.String(), {
    description: 'The partners blocked on `last_decision` as of `at`, by code.',
  }),
  channel: Type.Optional(
    Type.Object(
      {
        product_code: Type.String(),
        channel: Type.String(),
        allowed: Type.Boolean({ description: 'False when the channel was blocked as of `at`.' }),
        since: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
          description: 'When the change in force at `at` was made; null: never changed by then.',
        }),
      },
      { description: 'Only when the request asked about a channel.' },
    ),
  ),
  in_checkpoint: Type.Boolean({
    description:
      "True when every record this answer rests on (the decisions, the channel's change) is in " +
      'the log under `checkpoint`; false while one still waits to be appended.',
  }),
});
export type CustomerStatus = Static<typeof CustomerStatus>;

export const ConsentStatus = Type.Object({
  template_code: Type.String(),
  at: Type.String({ format: 'date-time', description: 'The moment answered for, in UTC.' }),
  customers: Type.Array(CustomerStatus, { description: 'One per id asked, in the order asked.' }),
  checkpoint: LogCheckpoint,
});
export type ConsentStatus = Static<typeof ConsentStatus>;
