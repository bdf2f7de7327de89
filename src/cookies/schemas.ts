import { type Static, Type } from 'typebox';
import { customerIdPattern } from '../decisions/index.js';
import { dateTimePattern, integerQuery } from '../platform/http-schemas.js';
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
    variant: Type.Optional(Type.String({ pattern: '^[a-z][a-z0-9_-]{0,19}$' })),
    customer_token: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2048,
        description:
          "The token of the customer the visitor is signed in as, from the site's backend " +
          '(`POST /api/v1/customers/{customer_id}/cookie-tokens`): the choice is then theirs too.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const defaultDecisionsPerPage = 100;
const maxDecisionsPerPage = 500;

/** Query of the API's list of cookie decisions: its filters, page size and cursor. */
export const CookieDecisionsQuery = Type.Object(
  {
    visitor_id: Type.Optional(
      Type.String({
        pattern: uuidPattern,
        description:
          "One visitor's choices: the id the banner keeps (`Consentrix.consent().visitor_id`). " +
          'A visitor never seen, or erased, has none.',
      }),
    ),
    customer_id: Type.Optional(
      Type.String({
        pattern: customerIdPattern,
        description:
          "One customer's choices, made while signed in as them (a page that gave the banner a " +
          'customer token). A customer never seen, or erased, has none.',
      }),
    ),
    system: Type.Optional(
      Type.String({
        maxLength: 64,
        description: "One system's choices, by its public scope (`data-scope`).",
        examples: ['cs_3f9a1c0d5e7b2a4c6d8e'],
      }),
    ),
    from: Type.Optional(
      Type.String({
        format: 'date-time',
        pattern: dateTimePattern,
        description: 'Choices made at or after this moment: ISO 8601 date-time with a time zone.',
        examples: ['2026-11-01T00:00:00Z'],
      }),
    ),
    to: Type.Optional(
      Type.String({
        format: 'date-time',
        pattern: dateTimePattern,
        description: 'Choices made before this moment (not at it): ISO 8601 with a time zone.',
        examples: ['2026-12-01T00:00:00Z'],
      }),
    ),
    limit: Type.Optional(
      integerQuery({
        pattern: '^(?:[1-9][0-9]?|[1-4][0-9]{2}|500)$',
        minimum: 1,
        maximum: maxDecisionsPerPage,
        description: `Decisions per page, 1 to ${maxDecisionsPerPage} (default ${defaultDecisionsPerPage}).`,
        examples: ['100'],
      }),
    ),
    cursor: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9_-]{1,200}$',
        description: "Opaque: the previous page's `next_cursor`.",
      }),
    ),
  },
  { additionalProperties: false },
);
export type CookieDecisionsQuery = Static<typeof CookieDecisionsQuery>;

/**
 * What a visitor's choice says, as the API's list and its receipt both show it (each adds its
 * own: the receipt's URL, or the choice's place in the log).
 */
export const cookieDecisionFields = {
  decision_id: Type.String({
    format: 'uuid',
    description: "The id the choice was answered with: its receipt's.",
  }),
  visitor_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
    description: "The visitor id the banner keeps in the site's cookie; null once erased.",
  }),
  system: Type.String({ description: "The system's public scope (`data-scope`)." }),
  configuration_id: Type.String({ format: 'uuid' }),
  configuration_version: Type.Integer({ minimum: 1 }),
  method: ChoiceMethodSchema,
  categories: Type.Record(Type.String(), Type.Boolean(), {
    description: 'Every category of the configuration: granted (true) or denied.',
  }),
  locale: Type.String({ description: 'The locale of the texts the visitor was shown.' }),
  origin: Type.String({ description: "The page's origin." }),
  region: Type.Optional(
    Type.String({
      description:
        "Where the visitor was, as the operator's proxy or database said: a country (`TH`) or a " +
        'subdivision of one (`US-CA`). Absent when the service did not know.',
      examples: ['TH'],
    }),
  ),
  variant: Type.Optional(
    Type.String({
      description:
        'The A/B variant the visitor saw (`base`: the configuration itself); only for a configuration with variants.',
      examples: ['b'],
    }),
  ),
};

/** A visitor's choice as the API lists it, with where its receipt is. */
export const CookieDecisionItem = Type.Object(
  {
    ...cookieDecisionFields,
    signed_in: Type.Optional(
      Type.Literal(true, {
        description:
          'Present for a choice made while the visitor was signed in as a customer ' +
          '(docs/cookies.md, "Signed-in visitors"): the choice is the customer\'s too.',
      }),
    ),
    decided_at: Type.String({ format: 'date-time' }),
    receipt_url: Type.String({
      format: 'uri',
      description:
        'Its receipt, with the same API key: `GET /api/v1/cookie-decisions/{decision_id}/receipt`.',
    }),
  },
  { description: "A website visitor's cookie choice." },
);
export type CookieDecisionItem = Static<typeof CookieDecisionItem>;

export const CookieDecisionPage = Type.Object({
  decisions: Type.Array(CookieDecisionItem, {
    description: 'The choices that pass the filters, newest first: one page of them.',
  }),
  next_cursor: Type.Union([Type.String(), Type.Null()], {
    description: 'The `cursor` of the next page; null on the last page.',
  }),
});
export type CookieDecisionPage = Static<typeof CookieDecisionPage>;
