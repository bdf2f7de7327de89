/**
 * A data-subject request step's leaf (`consent-log/request/v1`), checked against fixed vectors
 * computed in a shell from docs/proof.md, not by this code:
 *
 *   subject, evidence: as test/proof/channel-leaf.test.ts (customer-42, API key)
 *   reason:    printf '%s' 'Loan records are kept for ten years.' | sha256sum
 *   leaf hash: { printf '\x00'; cat leaf.txt; } | sha256sum, leaf.txt holding `leaf` below
 */
import { describe, expect, it } from 'vitest';
import {
  leafHash,
  parseLeaf,
  partnerLeafFormat,
  type RequestLeafFields,
  requestLeafFormat,
} from '../../src/proof/index.js';
import { openedStepLeaf } from '../../src/requests/leaf.js';

const subjectSalt = 'AAECAwQFBgcICQoLDA0ODw=='; // bytes 0x00 … 0x0f
const evidenceSalt = 'EBESExQVFhcYGRobHB0eHw=='; // bytes 0x10 … 0x1f
const reasonSha = '508254959767856a6267d3e5c459be5a221f6681c935471b2287aabf9bbe5f36';
const leaf =
  'consent-log/request/v1\n' +
  'record 0190e8a0-0000-7000-8000-000000000e01\n' +
  'time 2026-03-01T09:20:00.000Z\n' +
  'request 0190e8a0-0000-7000-8000-000000000e00\n' +
  'kind erasure\n' +
  'step refused\n' +
  'due 2026-03-31\n' +
  'ground legal_obligation\n' +
  `reason ${reasonSha}\n` +
  'subject nZigUkNBwvGew7G3xJ45H8mMSzKuMxF+HAW0I14W8ZI=\n' +
  'evidence WOBSyflHrEJxDGMXLoIzL8YoAAiVoAPCR0Je/aqZ/84=\n';
const leafHashHex = 'e85ffbdbc1a23db017362197a3ff43a6419ff5aeffc74712d95930436f552ae4';
const fields: RequestLeafFields = {
  recordId: '0190e8a0-0000-7000-8000-000000000e01',
  time: '2026-03-01T09:20:00.000Z',
  requestId: '0190e8a0-0000-7000-8000-000000000e00',
  kind: 'erasure',
  step: 'refused',
  due: '2026-03-31',
  ground: 'legal_obligation',
  reason: reasonSha,
  subject: 'nZigUkNBwvGew7G3xJ45H8mMSzKuMxF+HAW0I14W8ZI=',
  evidence: 'WOBSyflHrEJxDGMXLoIzL8YoAAiVoAPCR0Je/aqZ/84=',
};
const step = {
  id: fields.recordId,
  made_at: fields.time,
  request_id: fields.requestId,
  kind: 'erasure',
  step: 'refused',
  due_on: '2026-03-31',
  ground: 'legal_obligation',
  reason: 'Loan records are kept for ten years.',
  evidence_salt: evidenceSalt,
  api_key_id: '0190e8a0-0000-7000-8000-0000000000aa',
  user_id: null,
};
const personal = { customer_id: 'customer-42', ip: '192.0.2.10', user_agent: 'Mozilla/5.0 (X11)' };

describe('the documented request-step leaf, for a fixed refusal', () => {
  it('the leaf text of the fields is the documented text, and its leaf hash the documented one', () => {
    expect(requestLeafFormat.text(fields)).toBe(leaf);
    expect(Buffer.from(leafHash(Buffer.from(leaf, 'utf8'))).toString('hex')).toBe(leafHashHex);
  });

  it('the leaf a step makes from its row is the documented text; a step with no ground or reason writes -', () => {
    expect(openedStepLeaf(step, personal, subjectSalt)).toBe(leaf);
    const plain = openedStepLeaf(
      { ...step, step: 'in_progress', ground: null, reason: null },
      personal,
      subjectSalt,
    );
    expect(plain).toBe(
      leaf
        .replace('step refused', 'step in_progress')
        .replace('ground legal_obligation', 'ground -')
        .replace(`reason ${reasonSha}`, 'reason -'),
    );
  });

  it('states the step as a receipt names it, and parses back to its fields only', () => {
    expect(requestLeafFormat.parse(leaf)).toEqual(fields);
    expect(requestLeafFormat.record(fields)).toEqual({
      step_id: fields.recordId,
      made_at: fields.time,
      request_id: fields.requestId,
      kind: 'erasure',
      step: 'refused',
      due_on: '2026-03-31',
      ground: 'legal_obligation',
      reason_sha256: reasonSha,
    });
    expect(parseLeaf(leaf)).toBeUndefined();
    expect(partnerLeafFormat.parse(leaf)).toBeUndefined();
    for (const bad of [
      leaf.slice(0, -1),
      leaf.replace('due 2026-03-31', 'due 31/03/2026'),
      leaf.replace(`reason ${reasonSha}`, 'reason because'),
      leaf.replace('consent-log/request/v1', 'consent-log/request/v2'),
      `${leaf}extra\n`,
    ]) {
      expect(requestLeafFormat.parse(bad), bad).toBeUndefined();
    }
  });
});
