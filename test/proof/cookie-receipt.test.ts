/**
 * A cookie decision's receipt checked offline, by `verifyReceipt` and by `verify-receipt`'s
 * verdict: a small log holding a decision's leaf and the fixed cookie leaf of cookie-vectors.ts,
 * its checkpoint signed with a key made here.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { verifyReceiptFile } from '../../src/cli/verify-receipt.js';
import {
  cookieLeafFormat,
  formatTlogProof,
  generateNoteKeys,
  inclusionProof,
  leafHash,
  parseSignerKey,
  parseVerifierKey,
  type ReceiptDocument,
  rootOf,
  signCheckpoint,
  verifyReceipt,
} from '../../src/proof/index.js';
import {
  contentSha256,
  leaf as cookieLeaf,
  evidenceSalt,
  subjectSalt,
  visitorId,
} from './cookie-vectors.js';
import { ascii } from './fixtures.js';

const decisionLeaf =
  'consent-log/leaf/v1\n' +
  'record 0190e8a0-0000-7000-8000-000000000001\n' +
  'time 2026-01-31T12:00:00.000Z\n' +
  'template 0190e8a0-0000-7000-8000-0000000000bb 3 sha256:e29b7d2e22b31f02ce9c520c6a8a70c0d2749340a1b15e11e9614e8a384f954f\n' +
  'decision given\n' +
  'subject dwfli/StejKRbOA+KagblgRxmk9iNdOFOgwxVONP0o4=\n' +
  'evidence aLZEWGmEX7BQhjUaExjyZ0/SrAcL3PJf1VBnmheGuNM=\n';

const origin = 'consent.example/consent-log/tenant-1';
const keys = generateNoteKeys('consent.example/consent-log');
const signer = parseSignerKey(keys.signerKey);
const verifier = parseVerifierKey(keys.verifierKey);
if (!signer.ok || !verifier.ok) throw new Error('generated keys do not parse');
const verifiers = [verifier.value];

const hashes = [decisionLeaf, cookieLeaf, decisionLeaf.replace('000001', '000002')].map((l) =>
  leafHash(ascii(l)),
);
const checkpoint = signCheckpoint(
  { origin: `${origin}`, size: hashes.length, rootHash: rootOf(hashes), extensions: [] },
  [signer.value],
);
const tlogProofOf = (index: number, leaf: string) =>
  formatTlogProof({
    index,
    inclusionProof: inclusionProof(hashes, index),
    checkpoint,
    extra: ascii(leaf),
  });

/** The cookie decision's receipt, as `GET /api/v1/cookie-decisions/{id}/receipt` answers it. */
const receipt = {
  cookie_decision: {
    decision_id: '0190e8a0-0000-7000-8000-000000000c01',
    decided_at: '2026-03-01T09:15:00.000Z',
    configuration_id: '0190e8a0-0000-7000-8000-0000000000dd',
    configuration_version: 2,
    content_sha256: contentSha256,
    method: 'custom',
    categories: { necessary: true, analytics: false, marketing: true, functional: false },
    visitor_id: visitorId,
  },
  leaf: cookieLeaf,
  leaf_index: 1,
  tree_size: 3,
  tlog_proof: tlogProofOf(1, cookieLeaf),
  checkpoint,
  verifier_key: keys.verifierKey,
  opening: {
    visitor_id: visitorId,
    subject_salt: subjectSalt,
    evidence_salt: evidenceSalt,
    ip: '192.0.2.0',
    user_agent: 'Mozilla/5.0 (X11)',
    origin: 'https://www.bank.example',
    locale: 'th',
  },
};

describe("a cookie decision's receipt, verified offline", () => {
  it('verifies with the verifier key alone, opens to the visitor and evidence, and gives the leaf fields', () => {
    const verified = verifyReceipt({ data: receipt }, verifiers, registry.formats);
    expect(verified).toEqual({
      ok: true,
      value: {
        kind: 'cookie-decision',
        leafIndex: 1,
        checkpoint: expect.objectContaining({ origin, size: 3 }),
        opened: true,
        // No witness given, none checked.
        witnesses: [],
        leaf: {
          recordId: '0190e8a0-0000-7000-8000-000000000c01',
          time: '2026-03-01T09:15:00.000Z',
          configurationId: '0190e8a0-0000-7000-8000-0000000000dd',
          version: 2,
          contentSha256: '5312bd6794ebca9262fcfefe4847c5820605b6c7ee0beaebd0cbf7a8d02a46bf',
          method: 'custom',
          categories: { analytics: false, functional: false, marketing: true, necessary: true },
          visitor: '3C7waapoOebjtVJYWEtpgLN4XGFMJ3ANxxb1wkzhONQ=',
          evidence: 'Z0FjWRUutrCMtxOLoqyGAKt7JVEajntshwwl597ZrsM=',
        },
        format: cookieLeafFormat,
        record: {
          decision_id: '0190e8a0-0000-7000-8000-000000000c01',
          decided_at: '2026-03-01T09:15:00.000Z',
          configuration_id: '0190e8a0-0000-7000-8000-0000000000dd',
          configuration_version: 2,
          content_sha256: '5312bd6794ebca9262fcfefe4847c5820605b6c7ee0beaebd0cbf7a8d02a46bf',
          method: 'custom',
          categories: { analytics: false, functional: false, marketing: true, necessary: true },
        },
      },
    });
  });

  it('verifies as tlog-proof text alone, and once the visitor was erased (no opening), unopened', () => {
    expect(verifyReceipt(receipt.tlog_proof, verifiers, registry.formats)).toMatchObject({
      ok: true,
      value: { kind: 'cookie-decision', opened: false },
    });
    const erased = {
      ...receipt,
      cookie_decision: { ...receipt.cookie_decision, visitor_id: null },
      opening: null,
    };
    expect(verifyReceipt(erased, verifiers, registry.formats)).toMatchObject({
      ok: true,
      value: { kind: 'cookie-decision', opened: false },
    });
  });

  it("a decision's receipt from the same log still verifies as a decision's", () => {
    expect(verifyReceipt(tlogProofOf(0, decisionLeaf), verifiers, registry.formats)).toMatchObject({
      ok: true,
      value: { kind: 'decision', leafIndex: 0, leaf: { decision: 'given', version: 3 } },
    });
  });

  const changed = (patch: (r: typeof receipt) => object) => patch(structuredClone(receipt));
  it.each([
    [
      'another method',
      changed((r) => ({ ...r, cookie_decision: { ...r.cookie_decision, method: 'accept-all' } })),
      "the receipt's method is not the one in the log",
    ],
    [
      'a category granted that was denied',
      changed((r) => ({
        ...r,
        cookie_decision: {
          ...r.cookie_decision,
          categories: { ...r.cookie_decision.categories, analytics: true },
        },
      })),
      "the receipt's categories is not the one in the log",
    ],
    [
      'a category left out',
      changed((r) => ({
        ...r,
        cookie_decision: {
          ...r.cookie_decision,
          categories: { necessary: true, analytics: false, marketing: true },
        },
      })),
      "the receipt's categories is not the one in the log",
    ],
    [
      'another configuration version',
      changed((r) => ({
        ...r,
        cookie_decision: { ...r.cookie_decision, configuration_version: 3 },
      })),
      "the receipt's configuration_version is not the one in the log",
    ],
    [
      'another time',
      changed((r) => ({
        ...r,
        cookie_decision: { ...r.cookie_decision, decided_at: '2026-03-01T09:15:01.000Z' },
      })),
      "the receipt's decided_at is not the one in the log",
    ],
    [
      'another visitor id in the opening',
      changed((r) => ({ ...r, opening: { ...r.opening, visitor_id: `${visitorId}0` } })),
      "the visitor id and salt do not open the leaf's visitor commitment",
    ],
    [
      'another address in the opening',
      changed((r) => ({ ...r, opening: { ...r.opening, ip: '192.0.2.1' } })),
      "the evidence and salt do not open the leaf's evidence commitment",
    ],
    [
      'another locale in the opening',
      changed((r) => ({ ...r, opening: { ...r.opening, locale: 'en' } })),
      "the evidence and salt do not open the leaf's evidence commitment",
    ],
    [
      'an opening without its origin',
      changed((r) => {
        const { origin: _, ...opening } = r.opening;
        return { ...r, opening };
      }),
      "the receipt's opening is not a cookie decision's (visitor id, evidence and salts)",
    ],
    [
      "a decision's opening",
      changed((r) => ({
        ...r,
        opening: {
          customer_id: visitorId,
          subject_salt: subjectSalt,
          evidence_salt: evidenceSalt,
          ip: '192.0.2.0',
          user_agent: null,
          api_key_id: 'k',
        },
      })),
      "the receipt's opening is not a cookie decision's (visitor id, evidence and salts)",
    ],
    [
      "a decision's fields instead of the cookie decision's",
      changed(({ cookie_decision: _, ...r }) => ({
        ...r,
        decision: { decision_id: '0190e8a0-0000-7000-8000-000000000c01' },
      })),
      "the receipt names a decision, but the log holds a cookie decision's leaf",
    ],
  ])('refuses the receipt with %s', (_what, tampered, reason) => {
    expect(verifyReceipt(tampered as ReceiptDocument, verifiers, registry.formats)).toEqual({
      ok: false,
      reason,
    });
  });

  const otherKeys = generateNoteKeys('consent.example/consent-log');
  const withProof = {
    ...receipt,
    // The hashes of the receipt's proof, as the API shows them: base64, the sibling first.
    inclusion_proof: inclusionProof(hashes, 1).map((hash) => Buffer.from(hash).toString('base64')),
  };

  it('accepts the proof fields a receipt shows when each is the one its proof holds', () => {
    expect(verifyReceipt(withProof, verifiers, registry.formats)).toMatchObject({ ok: true });
  });

  it.each([
    ['leaf', { leaf: cookieLeaf.replace('method custom', 'method accept-all') }],
    ['leaf', { leaf: `${cookieLeaf}note we never share your data\n` }],
    ['leaf_index', { leaf_index: 0 }],
    ['tree_size', { tree_size: 4 }],
    ['inclusion_proof', { inclusion_proof: withProof.inclusion_proof.slice(1) }],
    ['inclusion_proof', { inclusion_proof: [...withProof.inclusion_proof].reverse() }],
    [
      'checkpoint',
      {
        checkpoint: signCheckpoint(
          { origin, size: 3, rootHash: rootOf(hashes.slice().reverse()), extensions: [] },
          [signer.value],
        ),
      },
    ],
    ['verifier_key', { verifier_key: otherKeys.verifierKey }],
  ])('refuses a receipt whose shown %s is not the one its proof holds', (field, change) => {
    expect(verifyReceipt({ ...withProof, ...change }, verifiers, registry.formats)).toEqual({
      ok: false,
      reason: `the receipt's ${field} is not the one its proof holds`,
    });
  });

  it("refuses a decision's leaf presented as a cookie decision", () => {
    const presented = { tlog_proof: tlogProofOf(0, decisionLeaf), cookie_decision: {} };
    expect(verifyReceipt(presented, verifiers, registry.formats)).toEqual({
      ok: false,
      reason: "the receipt names a cookie decision, but the log holds a decision's leaf",
    });
  });
});

describe("verify-receipt's verdict on a cookie decision's receipt", () => {
  const dir = mkdtempSync(join(tmpdir(), 'cookie-receipt-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, body: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, typeof body === 'string' ? body : JSON.stringify(body));
    return path;
  };

  it('names the kind and prints the configuration, version, method, categories and time', () => {
    const verdict = verifyReceiptFile(
      file('receipt.json', { data: receipt }),
      keys.verifierKey,
      registry.formats,
    );
    expect(verdict).toEqual({
      valid: true,
      kind: 'cookie-decision',
      origin,
      tree_size: 3,
      leaf_index: 1,
      opened: true,
      record: {
        decision_id: '0190e8a0-0000-7000-8000-000000000c01',
        decided_at: '2026-03-01T09:15:00.000Z',
        configuration_id: '0190e8a0-0000-7000-8000-0000000000dd',
        configuration_version: 2,
        content_sha256: '5312bd6794ebca9262fcfefe4847c5820605b6c7ee0beaebd0cbf7a8d02a46bf',
        method: 'custom',
        categories: { analytics: false, functional: false, marketing: true, necessary: true },
      },
    });
  });

  it("a decision's receipt keeps its record, now with its kind", () => {
    const verdict = verifyReceiptFile(
      file('decision.txt', tlogProofOf(0, decisionLeaf)),
      keys.verifierKey,
      registry.formats,
    );
    expect(verdict).toMatchObject({
      valid: true,
      kind: 'decision',
      record: {
        decision_id: '0190e8a0-0000-7000-8000-000000000001',
        decision: 'given',
        version: 3,
      },
    });
  });

  it("is invalid when the receipt's leaf text was edited, though its proof is intact", () => {
    const edited = {
      data: { ...receipt, leaf: receipt.leaf.replace('marketing=1', 'marketing=0') },
    };
    expect(edited.data.leaf).not.toBe(receipt.leaf);
    expect(
      verifyReceiptFile(file('edited-leaf.json', edited), keys.verifierKey, registry.formats),
    ).toEqual({ valid: false, reason: "the receipt's leaf is not the one its proof holds" });
  });

  it('is invalid, with the reason, for another visitor id', () => {
    const tampered = { data: { ...receipt, opening: { ...receipt.opening, visitor_id: 'v-2' } } };
    expect(
      verifyReceiptFile(file('tampered.json', tampered), keys.verifierKey, registry.formats),
    ).toEqual({
      valid: false,
      reason: "the visitor id and salt do not open the leaf's visitor commitment",
    });
  });
});
