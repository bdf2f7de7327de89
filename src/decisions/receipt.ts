import { type Static, Type } from 'typebox';
import {
  customerOpeningFields,
  type LogProof,
  logProof,
  type OpenedPersonal,
  Via,
} from '../record-kinds/index.js';
import { presentDecision } from './decision.js';
import type { findDecisionWithTemplate } from './record-repository.js';
import { ActedBy, ExplicitAct, RecordedDecision } from './schemas.js';

/** A decision as its receipt presents it: the record with its template's code. */
export type DecisionWithTemplate = NonNullable<
  Awaited<ReturnType<typeof findDecisionWithTemplate>>
>;

export const Receipt = Type.Object({
  decision: Type.Object(
    { ...RecordedDecision.properties, customer_id: Type.Union([Type.String(), Type.Null()]) },
    { description: 'The decision (D); `customer_id` is null once the customer was erased' },
  ),
  ...logProof('consent-log/leaf/v1'),
  opening: Type.Union(
    [
      Type.Object({
        ...customerOpeningFields,
        api_key_id: Type.String(),
        via: Type.Optional(Via),
        explicit: Type.Optional(ExplicitAct),
        acted_by: Type.Optional(ActedBy),
      }),
      Type.Null(),
    ],
    {
      description:
        "What opens the leaf's subject and evidence commitments; null once the customer was erased",
    },
  ),
});
export type Receipt = Static<typeof Receipt>;

/** The receipt of a decision from its record, its log proof and its opened personal fields. */
export function decisionReceipt(
  decision: DecisionWithTemplate,
  proof: LogProof,
  personal: OpenedPersonal,
): Receipt {
  return {
    decision: {
      ...presentDecision(decision, '', decision.template_code),
      customer_id: personal?.personal.customer_id ?? null,
    },
    ...proof,
    opening: personal
      ? {
          customer_id: personal.personal.customer_id,
          subject_salt: personal.salt,
          evidence_salt: decision.evidence_salt ?? '',
          ip: personal.personal.ip,
          user_agent: personal.personal.user_agent,
          api_key_id: decision.api_key_id,
          ...(personal.personal.via === 'preference-centre'
            ? { via: 'preference-centre' as const }
            : {}),
          ...(personal.personal.explicit
            ? { explicit: personal.personal.explicit as Static<typeof ExplicitAct> }
            : {}),
          ...(personal.personal.acted_by ? { acted_by: personal.personal.acted_by } : {}),
        }
      : null,
  };
}
