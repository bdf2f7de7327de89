import { type ErrorBody, errorBody } from '../platform/errors.js';
import { DecisionRefused } from './rule.js';
import type { RecordedDecision } from './schemas.js';
import type { DecisionOutcome } from './writes.js';

/** The API's answer to a decision (contract section 4): what is sent, and what a key replays. */
export interface DecisionAnswer {
  status: number;
  body: { data: RecordedDecision } | ErrorBody;
  /** True when an idempotency key answered a stored response. */
  replayed: boolean;
}

/**
 * A decision's outcome as the API answers it: `201` recorded, `200` unchanged, the refusal's
 * `409`, or the first answer again for a replayed key. The route sends it; an idempotency key
 * keeps it (`idempotency.ts`), so that a replay is byte for byte the first answer.
 */
export function answerOf(outcome: DecisionOutcome): DecisionAnswer {
  switch (outcome.kind) {
    case 'recorded':
      return { status: 201, body: { data: outcome.decision }, replayed: false };
    case 'unchanged':
      return { status: 200, body: { data: outcome.decision }, replayed: false };
    case 'refused': {
      const error = new DecisionRefused(outcome.refusal);
      return { status: error.status, body: errorBody(error), replayed: false };
    }
    case 'replayed':
      return { ...outcome.answer, replayed: true };
  }
}
