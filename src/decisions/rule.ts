import { AppError } from '../platform/errors.js';
import type { VersionWithCode } from '../templates/index.js';
import type { DecisionValue } from './table.js';

/**
 * A refusal under the rules of contract section 5 (`409`): an answer to the request, not a fault,
 * so a retry with the same idempotency key is refused the same way.
 */
export class DecisionRefused extends AppError {}

/** Where the customer stands, as the rules of contract section 5 read it. */
export interface Standing {
  /** On the version's template: how many decisions, and the latest. */
  template: { decision_count: number; last_decision: DecisionValue } | undefined;
  /**
   * On the version's release: the latest decision on any of its locales' variants; `lapsed`
   * when it is a `given` older than the template's validity period (`lapseOf`).
   */
  release: { last_decision: DecisionValue; last_decision_id: string; lapsed?: boolean } | undefined;
}

/** What the rules allow: a new decision (the `seq` it takes), or the one already given. */
export type Ruling = { kind: 'record'; seq: number } | { kind: 'unchanged'; decisionId: string };

/**
 * The rules of contract section 5, on the customer's standing: the one place they are written.
 * Throws `DecisionRefused`.
 */
export function rule(
  standing: Standing,
  version: Pick<VersionWithCode, 'allow_reconsent'>,
  decision: DecisionValue,
): Ruling {
  if (decision === 'withdraw') {
    // Withdrawing must be as easy as giving: allow_reconsent does not apply to it.
    if (standing.template?.last_decision !== 'given')
      throw new DecisionRefused('nothingToWithdraw');
  } else if (standing.release && version.allow_reconsent === 0 && !standing.release.lapsed) {
    // A lapsed `given` asks the customer again: their answer, whichever, is a new decision.
    if (standing.release.last_decision !== decision) {
      throw new DecisionRefused('reconsentNotAllowed');
    }
    return { kind: 'unchanged', decisionId: standing.release.last_decision_id };
  }
  return { kind: 'record', seq: (standing.template?.decision_count ?? 0) + 1 };
}
