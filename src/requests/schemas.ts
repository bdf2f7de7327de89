import { type Static, Type } from 'typebox';
import { laterSteps, refusalGroundNames, requestKindNames, requestSteps } from './rules.js';

/** One of these strings, in an answer (typed as a string: the rows hold strings). */
const oneOf = (values: readonly string[], description?: string) =>
  Type.String({ enum: [...values], ...(description ? { description } : {}) });

export const RequestIdParam = Type.String({ format: 'uuid', description: "The request's id" });

export const NewRequestBody = Type.Object(
  {
    kind: Type.Enum(requestKindNames, {
      description:
        'The right exercised: `access`, `portability`, `objection`, `erasure`, `restriction`, `rectification` or `withdrawal`',
    }),
    details: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 4000,
        description:
          "What the customer wrote with it (what to rectify, which use they object to); sealed under the customer's key",
      }),
    ),
  },
  { additionalProperties: false },
);
export type NewRequestBody = Static<typeof NewRequestBody>;

export const StepBody = Type.Object(
  {
    step: Type.Enum(laterSteps, {
      description:
        '`identity_checked`, `in_progress`, `extended` (30 days more, once, with a `reason`), `done`, or `refused` (with a `ground` and a `reason`)',
    }),
    ground: Type.Optional(
      Type.Enum(refusalGroundNames, {
        description: "A refusal's PDPA ground (docs/requests.md lists them)",
      }),
    ),
    reason: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2000,
        description:
          "A refusal's or an extension's reason, in words: it goes in the section 39 record, so it names no one",
      }),
    ),
  },
  { additionalProperties: false },
);
export type StepBody = Static<typeof StepBody>;

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) =>
  Type.Union([schema, Type.Null()]);

const requestFields = {
  request_id: Type.String({ format: 'uuid' }),
  customer_id: Nullable(Type.String({ description: 'Null once the customer was erased' })),
  kind: oneOf(requestKindNames),
  status: oneOf(requestSteps, 'The latest step'),
  via: oneOf(['api', 'preference-centre', 'backoffice'], 'How it came in'),
  received_at: Type.String({ format: 'date-time' }),
  due_on: Type.String({
    format: 'date',
    description:
      "30 days after the day it was received, in the tenant's time zone (60 once extended)",
  }),
  days_left: Type.Union([Type.Integer(), Type.Null()], {
    description:
      "Whole days from today in the tenant's time zone to the due date, negative once overdue; null once closed",
  }),
  overdue: Type.Boolean(),
  extended: Type.Boolean(),
  assignee_id: Nullable(Type.String({ format: 'uuid', description: 'The back-office user on it' })),
  ground: Nullable(Type.String({ description: "A refusal's PDPA ground" })),
  reason: Nullable(Type.String({ description: "A refusal's or the extension's reason" })),
  closed_at: Nullable(Type.String({ format: 'date-time' })),
};

export const RequestSummary = Type.Object(requestFields);

export const StepSchema = Type.Object({
  step_id: Type.String({
    format: 'uuid',
    description: "The step's id (its receipt: `GET /api/v1/request-steps/{id}/receipt`)",
  }),
  step: oneOf(requestSteps),
  made_at: Type.String({ format: 'date-time' }),
  due_on: Type.String({ format: 'date' }),
  ground: Nullable(Type.String()),
  reason: Nullable(Type.String()),
  actor: Type.Object({
    api_key_id: Nullable(Type.String({ format: 'uuid' })),
    user_id: Nullable(Type.String({ format: 'uuid' })),
  }),
});

export const RequestDetailSchema = Type.Object({
  ...requestFields,
  details: Nullable(Type.String({ description: 'What the customer wrote; null once erased' })),
  steps: Type.Array(StepSchema, { description: 'Every step, oldest first' }),
  notes: Type.Array(
    Type.Object({
      note_id: Type.String({ format: 'uuid' }),
      user_id: Type.String({ format: 'uuid' }),
      body: Nullable(Type.String()),
      written_at: Type.String({ format: 'date-time' }),
    }),
    { description: "Staff's notes, oldest first" },
  ),
});

/** A step's answer: the request after it, and for an access or portability request done, its link. */
export const StepAnswerSchema = Type.Object({
  ...RequestDetailSchema.properties,
  delivery: Type.Optional(
    Type.Object(
      {
        url: Type.String({
          format: 'uri',
          description:
            "The single-use link to a ZIP of the customer's evidence pack, `export.json` and `export.csv`: give it to the customer; it is shown this once",
        }),
        expires_at: Type.String({ format: 'date-time', description: '7 days after it was made' }),
      },
      { description: 'Present only when an access or portability request was just marked done' },
    ),
  ),
  withdrawn: Type.Optional(
    Type.Array(Type.String(), {
      description:
        'The templates whose consents a withdrawal or objection request just marked done withdrew (each a `withdraw` decision with its receipt)',
    }),
  ),
});
