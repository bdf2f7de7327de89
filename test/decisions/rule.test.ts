/**
 * The rules of contract section 5 as one table: where the customer stands, the version's
 * `allow_reconsent`, the decision asked, and what the rules answer. No server and no store: `rule`
 * is a function of its inputs. Expected refusals are the contract's own codes and messages.
 */
import { describe, expect, it } from 'vitest';
import { rule, type Standing } from '../../src/decisions/rule.js';
import type { DecisionValue } from '../../src/decisions/table.js';

const nothingToWithdraw = { status: 409, code: '1005', message: 'Nothing to withdraw.' };
const reconsentNotAllowed = {
  status: 409,
  code: '1005',
  message: 'Re-consent is not allowed for this version.',
};

/** The customer's standing: their latest decision on the template (with the count) and release. */
function standing(
  template?: [count: number, last: DecisionValue],
  release?: DecisionValue,
): Standing {
  return {
    template: template && { decision_count: template[0], last_decision: template[1] },
    release: release && { last_decision: release, last_decision_id: 'earlier-decision' },
  };
}

type Expected =
  | { record: number }
  | { unchanged: string }
  | { refused: typeof nothingToWithdraw | typeof reconsentNotAllowed };

const cases: [string, Standing, 0 | 1, DecisionValue, Expected][] = [
  // A first decision.
  ['first given', standing(), 1, 'given', { record: 1 }],
  ['first reject', standing(), 1, 'reject', { record: 1 }],
  ['first given, no re-consent', standing(), 0, 'given', { record: 1 }],
  ['withdraw with no decision at all', standing(), 1, 'withdraw', { refused: nothingToWithdraw }],
  // withdraw: the most recent decision on the template, any version, must be `given`.
  ['withdraw after given', standing([2, 'given'], 'given'), 1, 'withdraw', { record: 3 }],
  [
    'withdraw after given, no re-consent',
    standing([1, 'given'], 'given'),
    0,
    'withdraw',
    { record: 2 },
  ],
  [
    'withdraw after given on another version of the template',
    standing([1, 'given']),
    0,
    'withdraw',
    { record: 2 },
  ],
  [
    'withdraw after reject',
    standing([1, 'reject'], 'reject'),
    1,
    'withdraw',
    { refused: nothingToWithdraw },
  ],
  [
    'withdraw after withdraw',
    standing([2, 'withdraw'], 'withdraw'),
    1,
    'withdraw',
    { refused: nothingToWithdraw },
  ],
  // given or reject on a version already decided, with re-consent: a new decision.
  ['given again, re-consent', standing([1, 'given'], 'given'), 1, 'given', { record: 2 }],
  ['reject after given, re-consent', standing([1, 'given'], 'given'), 1, 'reject', { record: 2 }],
  // Without re-consent: the same value answers the existing decision; another is refused.
  [
    'given again, no re-consent',
    standing([1, 'given'], 'given'),
    0,
    'given',
    { unchanged: 'earlier-decision' },
  ],
  [
    'reject again, no re-consent',
    standing([1, 'reject'], 'reject'),
    0,
    'reject',
    { unchanged: 'earlier-decision' },
  ],
  [
    'reject after given, no re-consent',
    standing([1, 'given'], 'given'),
    0,
    'reject',
    { refused: reconsentNotAllowed },
  ],
  [
    'given after a withdrawal on the version, no re-consent',
    standing([2, 'withdraw'], 'withdraw'),
    0,
    'given',
    { refused: reconsentNotAllowed },
  ],
  // A version not yet decided on is decided afresh, whatever came before on the template.
  [
    'given on a new version after given on an older one, no re-consent',
    standing([1, 'given']),
    0,
    'given',
    { record: 2 },
  ],
  [
    'reject on a new version after given on an older one, no re-consent',
    standing([3, 'given']),
    0,
    'reject',
    { record: 4 },
  ],
];

describe('the rules of decisions (contract section 5)', () => {
  it.each(cases)('%s', (_, where, allowReconsent, decision, expected) => {
    const version = { allow_reconsent: allowReconsent };
    if ('refused' in expected) {
      let refusal: unknown;
      try {
        rule(where, version, decision);
      } catch (error) {
        refusal = error;
      }
      expect(refusal).toMatchObject(expected.refused);
      return;
    }
    const ruling = rule(where, version, decision);
    if ('record' in expected) expect(ruling).toEqual({ kind: 'record', seq: expected.record });
    else expect(ruling).toEqual({ kind: 'unchanged', decisionId: expected.unchanged });
  });
});
