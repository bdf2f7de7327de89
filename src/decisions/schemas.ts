import { type Static, Type } from 'typebox';
import { uuidPattern } from '../platform/ids.js';
import { actorRoles, ageBands, explicitMethods } from '../proof/index.js';
import { PublishedVersion } from '../templates/index.js';

export const customerIdPattern = '^[A-Za-z0-9._:@+-]{1,128}$';

export const CustomerIdParam = Type.String({
  pattern: customerIdPattern,
  description: 'Identifier of the customer: 1 to 128 of A-Z a-z 0-9 . _ : @ + -',
  examples: ['5b1e7c1a-8f0e-4a51-9a8c-0f4f7b2f6b11'],
});

export const DecisionValue = Type.Enum(['given', 'reject', 'withdraw']);
export type DecisionValue = Static<typeof DecisionValue>;

/** The explicit act behind a consent to sensitive data (PDPA section 26; docs/pdpa.md). */
export const ExplicitAct = Type.Object(
  {
    method: Type.Union(
      [
        Type.Literal(explicitMethods[0]),
        Type.Literal(explicitMethods[1]),
        Type.Literal(explicitMethods[2]),
      ],
      { description: 'How the person confirmed: a separate tick, a signature, a one-time code' },
    ),
    text_shown: Type.String({
      minLength: 1,
      maxLength: 4000,
      description: 'The exact text the person confirmed, as shown to them',
    }),
  },
  {
    additionalProperties: false,
    description:
      'Required with `given` on a template that covers sensitive data; kept sealed with the ' +
      "decision's evidence and committed in its leaf. Optional anywhere else.",
  },
);

const Role = (description: string) => Type.Enum([...actorRoles], { description });
const Reference = Type.String({
  minLength: 1,
  maxLength: 128,
  description: "The representative's own reference (their customer id, ID card or passport number)",
});

/** Who acted on a decision, and the basis the client states (PDPA section 20; docs/pdpa.md). */
export const ActedBy = Type.Object(
  {
    role: Role('The data subject, or the representative who acted for them'),
    reference: Type.Optional(Reference),
    age_band: Type.Optional(
      Type.Enum([...ageBands], { description: "The subject's age band, as the client states it" }),
    ),
    court_order: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'The reference of the court order appointing a guardian or curator',
      }),
    ),
    co_consent: Type.Optional(
      Type.Object(
        {
          role: Role('The co-consenting party: a representative, or the subject beside one'),
          reference: Type.Optional(Reference),
          at: Type.Optional(
            Type.String({
              format: 'date-time',
              description:
                'When that party acted, when apart: as the client states it, or the time of the ' +
                'act the service held until this one came',
            }),
          ),
        },
        { additionalProperties: false, description: 'The second act of a co-consent' },
      ),
    ),
  },
  {
    additionalProperties: false,
    description:
      "Who acted: the subject or a representative (with the representative's reference), and " +
      'the basis stated (an age band or a court order). Required on a template with a ' +
      "representation rule; kept sealed with the decision's evidence and committed in its leaf.",
  },
);
export type ActedBy = Static<typeof ActedBy>;

/**
 * One act of a co-consent, held until the other side's comes (PDPA section 20): the answer
 * `202` to a `given` from one side where the template's rule asks for both. Nothing is recorded
 * yet; the decision is, with both acts, when the other side's `given` comes.
 */
export const HeldDecision = Type.Object({
  customer_id: Type.String(),
  template_code: Type.String(),
  consent_version_id: Type.String({ format: 'uuid' }),
  decision: Type.Literal('given'),
  side: Type.Enum(['subject', 'representative'], { description: 'Whose act is held' }),
  missing: Type.Enum(['subject', 'representative'], {
    description: 'Whose act is still missing: their `given` with acted_by records the decision',
  }),
  held_at: Type.String({ format: 'date-time' }),
  expires_at: Type.String({
    format: 'date-time',
    description: 'When the held act is dropped if the other side has not acted',
  }),
});
export type HeldDecision = Static<typeof HeldDecision>;

export const DecisionRequest = Type.Object(
  {
    consent_version_id: Type.String({ pattern: uuidPattern }),
    decision: DecisionValue,
    explicit: Type.Optional(ExplicitAct),
    acted_by: Type.Optional(ActedBy),
  },
  { additionalProperties: false },
);
export type DecisionRequest = Static<typeof DecisionRequest>;

/** D of contract section 4. */
export const RecordedDecision = Type.Object({
  decision_id: Type.String({ format: 'uuid' }),
  customer_id: Type.String(),
  template_code: Type.String(),
  consent_version_id: Type.String({ format: 'uuid' }),
  version: Type.Integer({ minimum: 1 }),
  decision: DecisionValue,
  decided_at: Type.String({ format: 'date-time' }),
});
export type RecordedDecision = Static<typeof RecordedDecision>;

export const PendingResult = Type.Object({
  accepted: Type.Boolean(),
  consent_version: PublishedVersion,
  decision: Type.Union([DecisionValue, Type.Null()]),
  decided_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  ...lapseFields(),
  missing: Type.Optional(
    Type.Enum(['subject', 'representative'], {
      description:
        "Only while one act of a co-consent the template's rule asks for is held (PDPA section " +
        '20): whose `given` is still missing.',
    }),
  ),
});
export type PendingResult = Static<typeof PendingResult>;

/**
 * What an answer adds when the customer's decision is a `given` on a template with a validity
 * period; absent otherwise, so those answers are as they were before validity periods.
 */
export function lapseFields() {
  return {
    expired: Type.Optional(
      Type.Boolean({
        description:
          'Present when the decision is a `given` on a template with a validity period: true ' +
          'from `expires_at` on, when the consent has lapsed and `accepted` is false.',
      }),
    ),
    expires_at: Type.Optional(
      Type.String({
        format: 'date-time',
        description:
          'When the `given` lapses (lapsed, when `expired`): its time plus the validity period ' +
          'in calendar months, in UTC; the last day of the month when that month is shorter.',
      }),
    ),
  };
}
