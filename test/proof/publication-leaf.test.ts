/**
 * The publication leaf of docs/proof.md ("Publications"), checked against bytes written out
 * here, and a receipt's `publication` checked offline against a log of two leaves made in the
 * test. The hashes were computed from the document alone (Python's hashlib: SHA-256 of the
 * texts, of 0x00 || leaf, of 0x01 || left || right).
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  decisionLeafFormat,
  formatTlogProof,
  generateNoteKeys,
  leafHash,
  parsePublicationLeaf,
  parseSignerKey,
  parseVerifierKey,
  publicationLeafFormat,
  publicationLeafText,
  signCheckpoint,
  verifyReceipt,
} from '../../src/proof/index.js';
import { b64, hex, must, toHex } from './fixtures.js';

// SHA-256 of '<p>Consent text (en)</p>', of '<p>Consent text</p>', of the bytes '%PDF-1.4 test'.
const enSha = '226d704005823c6b5e9088cfacdff845a3672a7f1bdb24eacd623eebd562d80d';
const thSha = 'e29b7d2e22b31f02ce9c520c6a8a70c0d2749340a1b15e11e9614e8a384f954f';
const pdfSha = 'd663640088750cf16276d623c2588d7233f2b84b45f4b2e20832f47b16aa5618';
const templateId = '0190e8a0-0000-7000-8000-0000000000bb';

const fields = {
  recordId: '0190e8a0-0000-7000-8000-000000000010',
  time: '2026-01-30T09:00:00.000Z',
  effective: '2026-01-31T00:00:00.000Z',
  what: 'template' as const,
  of: templateId,
  version: 3,
  // Given out of order: the leaf sorts them.
  texts: [
    { locale: 'th', id: '0190e8a0-0000-7000-8000-0000000000e2', sha256: thSha, file: pdfSha },
    { locale: 'en', id: '0190e8a0-0000-7000-8000-0000000000e1', sha256: enSha, file: null },
  ],
  partners: ['thai-credit', 'acme-bank'],
};
const publication =
  'consent-log/publication/v1\n' +
  'record 0190e8a0-0000-7000-8000-000000000010\n' +
  'time 2026-01-30T09:00:00.000Z\n' +
  'effective 2026-01-31T00:00:00.000Z\n' +
  'template 0190e8a0-0000-7000-8000-0000000000bb 3\n' +
  `text en 0190e8a0-0000-7000-8000-0000000000e1 sha256:${enSha} file:-\n` +
  `text th 0190e8a0-0000-7000-8000-0000000000e2 sha256:${thSha} file:${pdfSha}\n` +
  'partners acme-bank thai-credit\n';
const publicationHash = '01ea300db7cc488341ca63d718dfcc74126da66b4d477df1fed0597516c2b384';

// The decision of test/proof/formats.test.ts: template bb, version 3, the Thai text.
const decision =
  'consent-log/leaf/v1\n' +
  'record 0190e8a0-0000-7000-8000-000000000001\n' +
  'time 2026-01-31T12:00:00.000Z\n' +
  `template ${templateId} 3 sha256:${thSha}\n` +
  'decision given\n' +
  'subject dwfli/StejKRbOA+KagblgRxmk9iNdOFOgwxVONP0o4=\n' +
  'evidence aLZEWGmEX7BQhjUaExjyZ0/SrAcL3PJf1VBnmheGuNM=\n';
const decisionHash = 'fbd01897fae42f8986d619a4922e8c796e1520c7d43cb2b90f477cfc4af6eaa5';
// The tree of the two, the publication first: SHA-256(0x01 || publication's || decision's).
const rootOfBoth = '5f0f6693d30d3838a15fda2e9d5108c7557de0958d327043e0d718d7535724c8';

describe('the publication leaf', () => {
  it('is the documented text, texts by locale and partners sorted, with the documented hash', () => {
    const text = publicationLeafText(fields);
    expect(text).toBe(publication);
    expect(toHex(leafHash(Buffer.from(text, 'utf8')))).toBe(publicationHash);
    expect(parsePublicationLeaf(publication)).toEqual({
      ...fields,
      texts: [...fields.texts].reverse(),
      partners: ['acme-bank', 'thai-credit'],
    });
  });

  it("a configuration's publication has its one text under `*`, and `partners -`", () => {
    const text = publicationLeafText({
      ...fields,
      what: 'configuration',
      texts: [{ locale: '*', id: fields.of, sha256: thSha, file: null }],
      partners: [],
    });
    expect(text).toBe(
      'consent-log/publication/v1\n' +
        'record 0190e8a0-0000-7000-8000-000000000010\n' +
        'time 2026-01-30T09:00:00.000Z\n' +
        'effective 2026-01-31T00:00:00.000Z\n' +
        `configuration ${templateId} 3\n` +
        `text * ${templateId} sha256:${thSha} file:-\n` +
        'partners -\n',
    );
    expect(parsePublicationLeaf(text)?.what).toBe('configuration');
  });

  it('parses only the bytes it writes: no other order, repeat, missing text or trailing byte', () => {
    const lines = publication.split('\n');
    const swapped = [...lines.slice(0, 5), lines[6], lines[5], ...lines.slice(7)].join('\n');
    const variants = [
      swapped,
      publication.replace('partners acme-bank thai-credit', 'partners thai-credit acme-bank'),
      publication.replace(/text th [^\n]*\n/, ''.concat(lines[5] as string, '\n')),
      [...lines.slice(0, 5), ...lines.slice(7)].join('\n'),
      `${publication}\n`,
      publication.replace('file:-', 'file:'),
      publication.replace(`sha256:${enSha}`, `sha256:${enSha.toUpperCase()}`),
      publication.replace('template ', 'templates '),
    ];
    for (const text of variants) expect(parsePublicationLeaf(text), text).toBeUndefined();
  });
});

describe("a receipt's publication, checked offline", () => {
  const keys = generateNoteKeys('example.com/consent-log');
  const signer = must(parseSignerKey(keys.signerKey));
  const verifier = must(parseVerifierKey(keys.verifierKey));
  const formats = [decisionLeafFormat, publicationLeafFormat];
  const checkpoint = signCheckpoint(
    { origin: 'example.com/consent-log', size: 2, rootHash: hex(rootOfBoth), extensions: [] },
    [signer],
  );
  const receipt = (shown: Record<string, unknown>) => ({
    tlog_proof: formatTlogProof({
      index: 1,
      inclusionProof: [hex(publicationHash)],
      checkpoint,
      extra: Buffer.from(decision, 'utf8'),
    }),
    publication: {
      leaf: publication,
      leaf_index: 0,
      inclusion_proof: [Buffer.from(hex(decisionHash)).toString('base64')],
      ...shown,
    },
  });

  it('verifies: the publication is in the log before the decision, of the text it commits to', () => {
    const verified = must(verifyReceipt(receipt({}), [verifier], formats));
    expect(verified.leafIndex).toBe(1);
    expect(verified.publication?.leafIndex).toBe(0);
    expect(verified.publication?.leaf.texts.map((t) => t.sha256)).toContain(thSha);
    expect(b64(receipt({}).publication.inclusion_proof[0] as string)).toEqual(hex(decisionHash));
  });

  it('is refused when a byte of it changes, when it is not before the record, or not of its text', () => {
    const refusals: [Record<string, unknown>, string][] = [
      [{ leaf: publication.replace('acme-bank', 'acme-bank2') }, 'under the receipt'],
      [{ leaf_index: 1 }, 'before its record'],
      [{ inclusion_proof: [] }, 'under the receipt'],
      [{ inclusion_proof: ['not base64'] }, 'not a leaf, an index'],
      [{ leaf: 42 }, 'not a leaf, an index'],
    ];
    for (const [shown, reason] of refusals) {
      const result = verifyReceipt(receipt(shown), [verifier], formats);
      expect(result.ok, JSON.stringify(shown)).toBe(false);
      if (!result.ok) expect(result.reason).toContain(reason);
    }
  });

  it("is refused when it publishes another version, template or text than the record's", () => {
    for (const other of [
      publication.replace(`${templateId} 3`, `${templateId} 4`),
      publication.replace(
        `template ${templateId}`,
        'template 0190e8a0-0000-7000-8000-0000000000cc',
      ),
      publication.replace(`sha256:${thSha}`, `sha256:${enSha}`),
    ]) {
      const otherHash = toHex(leafHash(Buffer.from(other, 'utf8')));
      const root = leafHashPair(otherHash, decisionHash);
      const signed = signCheckpoint(
        { origin: 'example.com/consent-log', size: 2, rootHash: root, extensions: [] },
        [signer],
      );
      const result = verifyReceipt(
        {
          tlog_proof: formatTlogProof({
            index: 1,
            inclusionProof: [hex(otherHash)],
            checkpoint: signed,
            extra: Buffer.from(decision, 'utf8'),
          }),
          publication: {
            leaf: other,
            leaf_index: 0,
            inclusion_proof: [Buffer.from(hex(decisionHash)).toString('base64')],
          },
        },
        [verifier],
        formats,
      );
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.reason).toContain('not of the text its record was made on');
    }
  });
});

/** SHA-256(0x01 || left || right): RFC 6962's interior node, for a tree of two leaves. */
function leafHashPair(left: string, right: string): Uint8Array {
  return new Uint8Array(
    createHash('sha256')
      .update(Buffer.from([1]))
      .update(hex(left))
      .update(hex(right))
      .digest(),
  );
}
