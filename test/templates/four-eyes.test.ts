import { describe, expect, it } from 'vitest';
import { mayPassOrApprove, type ReviewHistory } from '../../src/templates/four-eyes.js';

const step = (s: ReviewHistory['steps'][number]['step'], user: string) => ({
  step: s,
  user_id: user,
});

// docs/team.md, "Four eyes": the person who submitted a version can neither pass its review nor
// approve it; they may still send it back or reject it; a tenant may turn the rule off.
const cases: Array<[string, ReviewHistory, string, boolean]> = [
  [
    'the submitter, four eyes on',
    { fourEyes: true, steps: [step('submitted', 'ann')] },
    'ann',
    false,
  ],
  [
    'someone else, four eyes on',
    { fourEyes: true, steps: [step('submitted', 'ann')] },
    'bob',
    true,
  ],
  [
    'the submitter, four eyes off',
    { fourEyes: false, steps: [step('submitted', 'ann')] },
    'ann',
    true,
  ],
  [
    'someone else, four eyes off',
    { fourEyes: false, steps: [step('submitted', 'ann')] },
    'bob',
    true,
  ],
  [
    'the submitter of a reviewed version, four eyes on',
    { fourEyes: true, steps: [step('submitted', 'ann'), step('passed', 'bob')] },
    'ann',
    false,
  ],
  [
    'the reviewer who passed it, not its submitter, four eyes on',
    { fourEyes: true, steps: [step('submitted', 'ann'), step('passed', 'bob')] },
    'bob',
    true,
  ],
  [
    'the first submitter once another resubmitted it after it was sent back',
    {
      fourEyes: true,
      steps: [step('submitted', 'ann'), step('sent_back', 'bob'), step('submitted', 'cat')],
    },
    'ann',
    true,
  ],
  [
    'the last submitter after it was sent back and resubmitted',
    {
      fourEyes: true,
      steps: [step('submitted', 'ann'), step('sent_back', 'bob'), step('submitted', 'cat')],
    },
    'cat',
    false,
  ],
  ['anyone, on a version never submitted', { fourEyes: true, steps: [] }, 'ann', true],
];

describe("four eyes: who may pass a version's review or approve it", () => {
  it.each(cases)('%s', (_situation, history, userId, expected) => {
    expect(mayPassOrApprove(history, userId)).toBe(expected);
  });
});
