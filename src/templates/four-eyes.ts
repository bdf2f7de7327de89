import type { ReviewStep } from './table.js';

/** What the four-eyes rule reads of a version: the tenant's setting and the version's steps. */
export interface ReviewHistory {
  /** Whether the tenant has four eyes on (its settings). */
  fourEyes: boolean;
  /** The version's steps of review, oldest first. */
  steps: readonly { step: ReviewStep; user_id: string }[];
}

/** Who submitted the version last, if anyone has. */
function submitterOf(steps: ReviewHistory['steps']): string | undefined {
  return steps.findLast((s) => s.step === 'submitted')?.user_id;
}

/**
 * The four-eyes rule: whether the user may pass the version's review or approve it. Under four
 * eyes, whoever submitted it last may do neither; sending it back and rejecting it stay open to
 * them. The service enforces it, the pages show their buttons by it, the mail and the dashboard
 * choose whom to tell by it.
 */
export function mayPassOrApprove(history: ReviewHistory, userId: string): boolean {
  return !history.fourEyes || submitterOf(history.steps) !== userId;
}
