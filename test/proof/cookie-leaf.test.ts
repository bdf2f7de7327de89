/**
 * The cookie decision's leaf (`consent-log/cookie/v1`) and its commitments, checked against the
 * fixed vectors of cookie-vectors.ts (computed in a shell from docs/proof.md, not by this code).
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
import {
  contentSha256,
  evidence,
  evidenceInThailand,
  evidenceInThailandVariantB,
  evidenceSalt,
  evidenceSignedIn,
  evidenceValues,
  evidenceWithoutUserAgent,
  fields,
  leaf,
  leafHashHex,
  signedInCustomer,
  signedInCustomerId,
  subjectSalt,
  visitor,
  visitorId,
} from './cookie-vectors.js';
import { documentedCookieEvidence, documentedCookieLeaf, documentedSubject } from './documented.js';

describe('the documented cookie leaf and its commitments, for a fixed choice', () => {
  it("the visitor's commitment is the subject commitment of the visitor id, as documented", () => {
    expect(subjectCommitment(subjectSalt, visitorId)).toBe(visitor);
  });

  it('the evidence commitment is the documented one, with a user agent and without', () => {
    expect(cookieEvidenceCommitment(evidenceSalt, evidenceValues)).toBe(evidence);
    expect(cookieEvidenceCommitment(evidenceSalt, { ...evidenceValues, userAgent: null })).toBe(
      evidenceWithoutUserAgent,
    );
    // A known region joins the evidence; an unknown one leaves it as it was.
    expect(cookieEvidenceCommitment(evidenceSalt, { ...evidenceValues, region: 'TH' })).toBe(
      evidenceInThailand,
    );
    expect(cookieEvidenceCommitment(evidenceSalt, { ...evidenceValues, region: null })).toBe(
      evidence,
    );
    expect(
      cookieEvidenceCommitment(evidenceSalt, { ...evidenceValues, region: 'TH', variant: 'b' }),
    ).toBe(evidenceInThailandVariantB);
    // A signed-in customer's subject commitment joins the evidence first.
    expect(subjectCommitment(subjectSalt, signedInCustomerId)).toBe(signedInCustomer);
    expect(
      cookieEvidenceCommitment(evidenceSalt, { ...evidenceValues, customer: signedInCustomer }),
    ).toBe(evidenceSignedIn);
    expect(cookieEvidenceCommitment(evidenceSalt, { ...evidenceValues, customer: null })).toBe(
      evidence,
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
        region: null,
        variant: null,
        customer: null,
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
      documentedCookieEvidence(
        evidenceSalt,
        '192.0.2.0',
        'th',
        'https://www.bank.example',
        'Mozilla/5.0 (X11)',
        'TH',
      ),
    ).toBe(evidenceInThailand);
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
