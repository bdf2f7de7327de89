import type { ReviewStep } from './table.js';

/** What the four-eyes rule reads of a release: the tenant's settings, its steps and its authors. */
export interface ReviewHistory {
  /** Whether the tenant has four eyes on (its settings). */
  fourEyes: boolean;
  /** Whether the tenant also wants the approver to be another person than the reviewer. */
  distinctApprover: boolean;
  /** The release's steps of review, oldest first. */
  steps: readonly { step: ReviewStep; user_id: string }[];
  /** Who wrote it: whoever created it, or created, changed or removed a locale's text of it. */
  authors: readonly string[];
}

/** The steps four eyes guards: passing the review, approving. */
export type GuardedStep = 'passed' | 'approved';

/** Why a user may not take a guarded step. */
export type FourEyesBar = 'submitter' | 'author' | 'reviewer';

/**
 * The four-eyes rule. With four eyes on, whoever submitted the release (at any time) and whoever
 * wrote any of its text may neither pass its review nor approve it; sending it back and rejecting
 * it stay open to them. With "another approver" on, whoever passed its review may not approve it.
 * Undefined when the user may take the step. The service enforces it, the pages show their
 * buttons by it, the mail and the dashboard choose whom to tell by it.
 */
export function fourEyesBar(
  history: ReviewHistory,
  userId: string,
  step: GuardedStep,
): FourEyesBar | undefined {
  const took = (kind: ReviewStep) =>
    history.steps.some((s) => s.step === kind && s.user_id === userId);
  if (history.fourEyes && took('submitted')) return 'submitter';
  if (history.fourEyes && history.authors.includes(userId)) return 'author';
  if (step === 'approved' && history.distinctApprover && took('passed')) return 'reviewer';
  return undefined;
}

/** Whether the user may take the step (see `fourEyesBar`). */
export function mayPassOrApprove(
  history: ReviewHistory,
  userId: string,
  step: GuardedStep,
): boolean {
  return fourEyesBar(history, userId, step) === undefined;
}

/** What is under review: a consent text's version, or a cookie banner's configuration. */
export type ReviewedThing = 'version' | 'configuration';

const because = (thing: ReviewedThing): Record<FourEyesBar, string> => ({
  submitter: `you submitted this ${thing}`,
  author: thing === 'version' ? 'you wrote or changed its text' : 'you made or changed it',
  reviewer: 'you passed its review, and this team wants another person to approve it',
});

/** The reason, in a sentence, a page and a refusal both say. */
export function fourEyesMessage(
  bar: FourEyesBar,
  step: GuardedStep,
  thing: ReviewedThing = 'version',
): string {
  return `Four eyes: ${because(thing)[bar]}, so someone else must ${step === 'passed' ? 'review' : 'approve'} it.`;
}
