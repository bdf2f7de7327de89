/**
 * The cookie decision's leaf (`consent-log/cookie/v1`) and its commitments, checked against bytes
 * written out here. The expected values were computed in a shell from docs/proof.md alone, not
 * by the code under test:
 *
 *   salt1=000102030405060708090a0b0c0d0e0f  salt2=101112131415161718191a1b1c1d1e1f
 *   visitor:  { printf 'subject/v1\n'; echo $salt1 | xxd -r -p;
 *               printf '%s' '6f1c2b9e-4d3a-4e8f-9b7c-1a2b3c4d5e6f'; } | sha256sum  (hex -> base64)
 *   evidence: { printf 'cookie-evidence/v1\n'; echo $salt2 | xxd -r -p;
 *               printf '%s' '{"ip":"192.0.2.0","locale":"th","origin":"https://www.bank.example","ua":"Mozilla/5.0 (X11)"}'; }
 *             | sha256sum  (hex -> base64); the same with "ua":null for a request without one
 *   content:  printf '%s' '{"categories":["necessary","analytics","marketing","functional"]}' | sha256sum
 *   leaf hash: { printf '\x00'; cat leaf.txt; } | sha256sum, leaf.txt holding `leaf` below
 */
import { describe, expect, it } from 'vitest';
import { leafOfCookieDecision } from '../../src/cookies/index.js';
import {
  type CookieLeafFields,
  cookieEvidenceCommitment,
  cookieLeafText,
  leafHash,
  parseCookieLeaf,
  parseLeaf,
  subjectCommitment,
} from '../../src/proof/index.js';
import { documentedCookieEvidence, documentedCookieLeaf, documentedSubject } from './documented.js';

// The fixed choice.
const subjectSalt = 'AAECAwQFBgcICQoLDA0ODw=='; // bytes 0x00 … 0x0f
const evidenceSalt = 'EBESExQVFhcYGRobHB0eHw=='; // bytes 0x10 … 0x1f
const visitorId = '6f1c2b9e-4d3a-4e8f-9b7c-1a2b3c4d5e6f';
const contentSha256 = '5312bd6794ebca9262fcfefe4847c5820605b6c7ee0beaebd0cbf7a8d02a46bf';
const evidenceValues = {
  ip: '192.0.2.0',
  userAgent: 'Mozilla/5.0 (X11)',
  origin: 'https://www.bank.example',
  locale: 'th',
};

// What the document makes of it.
const visitor = '3C7waapoOebjtVJYWEtpgLN4XGFMJ3ANxxb1wkzhONQ=';
const evidence = 'Z0FjWRUutrCMtxOLoqyGAKt7JVEajntshwwl597ZrsM=';
const evidenceWithoutUserAgent = '/5H/OQYuzhm9syBFpGC6LgbFSXvi2Ppae3AmOed5Kb8=';
const leaf =
  'consent-log/cookie/v1\n' +
  'record 0190e8a0-0000-7000-8000-000000000c01\n' +
  'time 2026-03-01T09:15:00.000Z\n' +
  'configuration 0190e8a0-0000-7000-8000-0000000000dd 2 sha256:5312bd6794ebca9262fcfefe4847c5820605b6c7ee0beaebd0cbf7a8d02a46bf\n' +
  'method custom\n' +
  'categories analytics=0 functional=0 marketing=1 necessary=1\n' +
  'visitor 3C7waapoOebjtVJYWEtpgLN4XGFMJ3ANxxb1wkzhONQ=\n' +
  'evidence Z0FjWRUutrCMtxOLoqyGAKt7JVEajntshwwl597ZrsM=\n';
const leafHashHex = '3daf50a4a08de451fdf50bc6172f769dc61c4b0f82b8093ed20039d04c49cf2a';

const fields: CookieLeafFields = {
  recordId: '0190e8a0-0000-7000-8000-000000000c01',
  time: '2026-03-01T09:15:00.000Z',
  configurationId: '0190e8a0-0000-7000-8000-0000000000dd',
  version: 2,
  contentSha256,
  method: 'custom',
  categories: { analytics: false, functional: false, marketing: true, necessary: true },
  visitor,
  evidence,
};

describe('the documented cookie leaf and its commitments, for a fixed choice', () => {
  it("the visitor's commitment is the subject commitment of the visitor id, as documented", () => {
    expect(subjectCommitment(subjectSalt, visitorId)).toBe(visitor);
  });

  it('the evidence commitment is the documented one, with a user agent and without', () => {
    expect(cookieEvidenceCommitment(evidenceSalt, evidenceValues)).toBe(evidence);
    expect(cookieEvidenceCommitment(evidenceSalt, { ...evidenceValues, userAgent: null })).toBe(
      evidenceWithoutUserAgent,
    );
  });

  it('the leaf text of the fields is the documented text, and its leaf hash the documented one', () => {
    expect(cookieLeafText(fields)).toBe(leaf);
    expect(Buffer.from(leafHash(Buffer.from(leaf, 'utf8'))).toString('hex')).toBe(leafHashHex);
  });

  it('the leaf the writer queues for the record is the documented text, whatever order the categories came in', () => {
    const queued = leafOfCookieDecision(
      {
        id: fields.recordId,
        decided_at: fields.time,
        configuration_id: fields.configurationId,
        configuration_version: 2,
        content_sha256: contentSha256,
        method: 'custom',
        categories: { necessary: true, marketing: true, analytics: false, functional: false },
        locale: 'th',
        origin: 'https://www.bank.example',
        evidence_salt: evidenceSalt,
        visitor_id: visitorId,
        ip: '192.0.2.0',
        user_agent: 'Mozilla/5.0 (X11)',
      },
      subjectSalt,
    );
    expect(queued).toBe(leaf);
  });

  it('the reference functions of documented.ts give the same literals (they judge live cookie decisions)', () => {
    expect(documentedSubject(subjectSalt, visitorId)).toBe(visitor);
    expect(
      documentedCookieEvidence(
        evidenceSalt,
        '192.0.2.0',
        'th',
        'https://www.bank.example',
        'Mozilla/5.0 (X11)',
      ),
    ).toBe(evidence);
    expect(
      documentedCookieEvidence(evidenceSalt, '192.0.2.0', 'th', 'https://www.bank.example', null),
    ).toBe(evidenceWithoutUserAgent);
    expect(
      documentedCookieLeaf({
        record: fields.recordId,
        time: fields.time,
        configurationId: fields.configurationId,
        version: 2,
        contentSha256,
        method: 'custom',
        categories: 'analytics=0 functional=0 marketing=1 necessary=1',
        visitor,
        evidence,
      }),
    ).toBe(leaf);
  });
});

describe('parsing a cookie leaf', () => {
  it('gives back the fields of the documented text, which write the same text again', () => {
    const parsed = parseCookieLeaf(leaf);
    expect(parsed).toEqual({
      recordId: '0190e8a0-0000-7000-8000-000000000c01',
      time: '2026-03-01T09:15:00.000Z',
      configurationId: '0190e8a0-0000-7000-8000-0000000000dd',
      version: 2,
      contentSha256: '5312bd6794ebca9262fcfefe4847c5820605b6c7ee0beaebd0cbf7a8d02a46bf',
      method: 'custom',
      categories: { analytics: false, functional: false, marketing: true, necessary: true },
      visitor: '3C7waapoOebjtVJYWEtpgLN4XGFMJ3ANxxb1wkzhONQ=',
      evidence: 'Z0FjWRUutrCMtxOLoqyGAKt7JVEajntshwwl597ZrsM=',
    });
    expect(cookieLeafText(parsed as CookieLeafFields)).toBe(leaf);
  });

  it.each([
    ['accept-all', 'analytics=1 necessary=1'],
    ['reject-all', 'analytics=0 necessary=1'],
    ['gpc', 'analytics=0 marketing=0 necessary=1'],
    ['custom', 'necessary=1'],
    // Names that an object's prototype also has are categories like any other.
    ['custom', 'constructor=1 necessary=1 tostring=0'],
  ])('round-trips method %s with categories %s', (method, categories) => {
    const text = leaf
      .replace('method custom', `method ${method}`)
      .replace(/categories [^\n]*/, `categories ${categories}`);
    const parsed = parseCookieLeaf(text);
    expect(parsed?.method).toBe(method);
    expect(Object.keys(parsed?.categories ?? {})).toEqual(
      categories.split(' ').map((pair) => pair.split('=')[0]),
    );
    expect(cookieLeafText(parsed as CookieLeafFields)).toBe(text);
  });

  it.each([
    ['a repeated category', (t: string) => t.replace('marketing=1', 'marketing=1 marketing=0')],
    [
      'categories out of order',
      (t: string) => t.replace('analytics=0 functional=0', 'functional=0 analytics=0'),
    ],
    ['no category', (t: string) => t.replace(/categories [^\n]*/, 'categories ')],
    [
      'a category neither granted nor denied',
      (t: string) => t.replace('marketing=1', 'marketing=2'),
    ],
    ['a category key in capitals', (t: string) => t.replace('marketing=1', 'Marketing=1')],
    ['two spaces between categories', (t: string) => t.replace('analytics=0 ', 'analytics=0  ')],
    ['an unknown method', (t: string) => t.replace('method custom', 'method accept-some')],
    ['a method in capitals', (t: string) => t.replace('method custom', 'method CUSTOM')],
    ['a version with a leading zero', (t: string) => t.replace(' 2 sha256:', ' 02 sha256:')],
    ['a version that is not a number', (t: string) => t.replace(' 2 sha256:', ' two sha256:')],
    ['a content hash in capitals', (t: string) => t.replace('5312bd67', '5312BD67')],
    ['a short content hash', (t: string) => t.replace('5312bd67', '5312bd6')],
    ['another header', (t: string) => t.replace('consent-log/cookie/v1', 'consent-log/cookie/v2')],
    ['no newline at the end', (t: string) => t.slice(0, -1)],
    ['a line more', (t: string) => `${t}extra 1\n`],
    ['lines swapped', (t: string) => t.replace(/(method [^\n]*\n)(categories [^\n]*\n)/, '$2$1')],
    ['CRLF line endings', (t: string) => t.replaceAll('\n', '\r\n')],
    ['no visitor commitment', (t: string) => t.replace(/visitor [^\n]*\n/, '')],
  ])('refuses %s', (_what, change) => {
    const text = change(leaf);
    expect(text).not.toBe(leaf);
    expect(parseCookieLeaf(text)).toBeUndefined();
  });

  it("is not a decision's leaf, nor a decision's leaf a cookie leaf", () => {
    expect(parseLeaf(leaf)).toBeUndefined();
    const decisionLeaf =
      'consent-log/leaf/v1\n' +
      'record 0190e8a0-0000-7000-8000-000000000001\n' +
      'time 2026-01-31T12:00:00.000Z\n' +
      'template 0190e8a0-0000-7000-8000-0000000000bb 3 sha256:e29b7d2e22b31f02ce9c520c6a8a70c0d2749340a1b15e11e9614e8a384f954f\n' +
      'decision given\n' +
      'subject dwfli/StejKRbOA+KagblgRxmk9iNdOFOgwxVONP0o4=\n' +
      'evidence aLZEWGmEX7BQhjUaExjyZ0/SrAcL3PJf1VBnmheGuNM=\n';
    expect(parseLeaf(decisionLeaf)).toBeDefined();
    expect(parseCookieLeaf(decisionLeaf)).toBeUndefined();
  });
});
