import { describe, expect, it } from 'vitest';
import {
  type GuardedStep,
  mayPassOrApprove,
  type ReviewHistory,
} from '../../src/templates/four-eyes.js';

const step = (s: ReviewHistory['steps'][number]['step'], user: string) => ({
  step: s,
  user_id: user,
});

const history = (o: Partial<ReviewHistory>): ReviewHistory => ({
  fourEyes: true,
  distinctApprover: false,
  steps: [],
  authors: [],
  ...o,
});

// docs/team.md, "Four eyes": whoever wrote a release (created it, or created, changed or removed
// any locale's text) and whoever submitted it can neither pass its review nor approve it; they
// may still send it back or reject it; a tenant may turn the rule off. With "another approver"
// on, whoever passed its review may not approve it either.
const cases: Array<[string, ReviewHistory, string, GuardedStep, boolean]> = [
  [
    'the submitter, four eyes on',
    history({ steps: [step('submitted', 'ann')] }),
    'ann',
    'passed',
    false,
  ],
  [
    'someone else, four eyes on',
    history({ steps: [step('submitted', 'ann')] }),
    'bob',
    'passed',
    true,
  ],
  [
    'the submitter, four eyes off',
    history({ fourEyes: false, steps: [step('submitted', 'ann')] }),
    'ann',
    'passed',
    true,
  ],
  [
    'the submitter of a reviewed version, four eyes on',
    history({ steps: [step('submitted', 'ann'), step('passed', 'bob')] }),
    'ann',
    'approved',
    false,
  ],
  [
    'the reviewer who passed it, not its submitter, four eyes on',
    history({ steps: [step('submitted', 'ann'), step('passed', 'bob')] }),
    'bob',
    'approved',
    true,
  ],
  [
    'a first submitter once another resubmitted it after it was sent back',
    history({
      steps: [step('submitted', 'ann'), step('sent_back', 'bob'), step('submitted', 'cat')],
    }),
    'ann',
    'passed',
    false,
  ],
  [
    'the last submitter after it was sent back and resubmitted',
    history({
      steps: [step('submitted', 'ann'), step('sent_back', 'bob'), step('submitted', 'cat')],
    }),
    'cat',
    'passed',
    false,
  ],
  [
    'the author, someone else submitted it, passing',
    history({ steps: [step('submitted', 'wes')], authors: ['ada'] }),
    'ada',
    'passed',
    false,
  ],
  [
    'the author, someone else submitted and passed it, approving',
    history({ steps: [step('submitted', 'wes'), step('passed', 'rae')], authors: ['ada'] }),
    'ada',
    'approved',
    false,
  ],
  [
    'one of several authors (changed one locale)',
    history({ steps: [step('submitted', 'wes')], authors: ['wes', 'tom'] }),
    'tom',
    'passed',
    false,
  ],
  [
    'the author, four eyes off',
    history({ fourEyes: false, steps: [step('submitted', 'wes')], authors: ['ada'] }),
    'ada',
    'passed',
    true,
  ],
  [
    'the reviewer approving, "another approver" on',
    history({
      distinctApprover: true,
      steps: [step('submitted', 'wes'), step('passed', 'rae')],
      authors: ['wes'],
    }),
    'rae',
    'approved',
    false,
  ],
  [
    'someone else approving, "another approver" on',
    history({
      distinctApprover: true,
      steps: [step('submitted', 'wes'), step('passed', 'rae')],
      authors: ['wes'],
    }),
    'abe',
    'approved',
    true,
  ],
  [
    'the reviewer approving, "another approver" on and four eyes off',
    history({
      fourEyes: false,
      distinctApprover: true,
      steps: [step('submitted', 'wes'), step('passed', 'rae')],
    }),
    'rae',
    'approved',
    false,
  ],
  [
    'anyone, on a version never submitted nor written by them',
    history({ authors: ['wes'] }),
    'ann',
    'passed',
    true,
  ],
];

describe("four eyes: who may pass a version's review or approve it", () => {
  it.each(cases)('%s', (_situation, h, userId, guarded, expected) => {
    expect(mayPassOrApprove(h, userId, guarded)).toBe(expected);
  });
});
