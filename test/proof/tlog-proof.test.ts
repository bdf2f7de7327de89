import { describe, expect, it } from 'vitest';
import {
  formatTlogProof,
  generateNoteKeys,
  inclusionProof,
  leafHash,
  type NoteSigner,
  type NoteVerifier,
  parseSignerKey,
  parseTlogProof,
  parseVerifierKey,
  rootOf,
  signCheckpoint,
  verifyTlogProof,
} from '../../src/proof/index.js';
import { ascii, b64, flipBit, loadFixture } from './fixtures.js';

interface ProofVectors {
  c2spExample: { proof: string; index: number; hashCount: number };
  merkleErrors: { cases: { name: string; proof: string }[] };
}

const vectors = loadFixture<ProofVectors>('tlog-proof.json');

function keysFor(name: string): { signer: NoteSigner; verifier: NoteVerifier } {
  const pair = generateNoteKeys(name);
  const signer = parseSignerKey(pair.signerKey);
  const verifier = parseVerifierKey(pair.verifierKey);
  if (!signer.ok || !verifier.ok) throw new Error('generated keys do not parse');
  return { signer: signer.value, verifier: verifier.value };
}

// A small log of consent leaves in the layout of the design document (no personal data).
const origin = 'consent.example/log/tenant-1';
const log = keysFor(origin);
const leaves = Array.from({ length: 13 }, (_, i) =>
  ascii(
    [
      'consent-log/leaf/v1',
      `record 00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      `time 2025-01-0${1 + (i % 9)}T10:00:00Z`,
      `template tpl-${i % 3} 1 sha256:${'ab'.repeat(32)}`,
      `decision ${i % 2 === 0 ? 'given' : 'withdraw'}`,
      `subject ${Buffer.from(`subject ${i}`).toString('base64')}`,
      '',
    ].join('\n'),
  ),
);
const hashes = leaves.map(leafHash);
const signedCheckpoint = signCheckpoint(
  { origin, size: leaves.length, rootHash: rootOf(hashes), extensions: [] },
  [log.signer],
);

function receipt(index: number, overrides: { extra?: Uint8Array; checkpoint?: string } = {}) {
  return formatTlogProof({
    index,
    inclusionProof: inclusionProof(hashes, index),
    checkpoint: overrides.checkpoint ?? signedCheckpoint,
    extra: overrides.extra ?? leaves[index]!,
  });
}

describe('tlog-proof receipts', () => {
  it('verify for every leaf with the log verifier key', () => {
    for (let index = 0; index < leaves.length; index++) {
      const result = verifyTlogProof(receipt(index), [log.verifier], { origin });
      expect(result.ok, `leaf ${index}`).toBe(true);
      if (!result.ok) continue;
      expect(result.value.index).toBe(index);
      expect(result.value.leaf).toEqual(leaves[index]);
      expect(result.value.checkpoint.size).toBe(leaves.length);
    }
  });

  it('have the layout of the spec', () => {
    const text = receipt(5);
    const lines = text.split('\n');
    expect(lines[0]).toBe('c2sp.org/tlog-proof@v1');
    expect(lines[1]).toBe(`extra ${Buffer.from(leaves[5]!).toString('base64')}`);
    expect(lines[2]).toBe('index 5');
    expect(text.endsWith(`\n\n${signedCheckpoint}`)).toBe(true);
  });

  it('round-trip through format and parse', () => {
    const proof = {
      index: 7,
      inclusionProof: inclusionProof(hashes, 7),
      checkpoint: signedCheckpoint,
      extra: leaves[7]!,
    };
    expect(parseTlogProof(formatTlogProof(proof))).toEqual({ ok: true, value: proof });
    const { extra: _, ...withoutExtra } = proof;
    expect(parseTlogProof(formatTlogProof(withoutExtra))).toEqual({
      ok: true,
      value: withoutExtra,
    });
  });

  it('fail with another log key, saying the checkpoint is not trusted', () => {
    const other = keysFor(origin);
    expect(verifyTlogProof(receipt(3), [other.verifier])).toEqual({
      ok: false,
      reason: 'checkpoint rejected: no signature from a trusted key',
    });
  });

  it('fail for another leaf at the same index', () => {
    for (const extra of [leaves[4]!, flipBit(leaves[3]!, 0), new Uint8Array(0)]) {
      expect(verifyTlogProof(receipt(3, { extra }), [log.verifier])).toEqual({
        ok: false,
        reason: 'the leaf is not included at this index under the checkpoint root',
      });
    }
  });

  it('fail after any single bit flip in an inclusion proof hash', () => {
    const proof = inclusionProof(hashes, 9);
    proof.forEach((hash, i) => {
      for (let bit = 0; bit < 256; bit++) {
        const text = formatTlogProof({
          index: 9,
          inclusionProof: proof.with(i, flipBit(hash, bit)),
          checkpoint: signedCheckpoint,
          extra: leaves[9]!,
        });
        expect(verifyTlogProof(text, [log.verifier]).ok).toBe(false);
      }
    });
  });

  it('fail at another index, with a missing or extra hash, or beyond the tree', () => {
    const proof = inclusionProof(hashes, 6);
    const variants = [
      { index: 7, inclusionProof: proof },
      { index: 6, inclusionProof: proof.slice(1) },
      { index: 6, inclusionProof: [...proof, hashes[0]!] },
      { index: 13, inclusionProof: proof },
    ];
    for (const variant of variants) {
      const text = formatTlogProof({ ...variant, checkpoint: signedCheckpoint, extra: leaves[6]! });
      expect(verifyTlogProof(text, [log.verifier]).ok).toBe(false);
    }
    expect(verifyTlogProof(receipt(6).replace('index 6', 'index 13'), [log.verifier])).toEqual({
      ok: false,
      reason: "index 13 is beyond the checkpoint's tree size 13",
    });
  });

  it('fail for a checkpoint of another origin when the origin is given', () => {
    const result = verifyTlogProof(receipt(2), [log.verifier], { origin: 'consent.example/x' });
    expect(result.ok).toBe(false);
  });

  it('fail without the leaf in the extra field', () => {
    const text = formatTlogProof({
      index: 1,
      inclusionProof: inclusionProof(hashes, 1),
      checkpoint: signedCheckpoint,
    });
    expect(verifyTlogProof(text, [log.verifier])).toEqual({
      ok: false,
      reason: 'the proof carries no leaf in its extra field',
    });
  });

  it('fail after any single bit flip in the receipt text', () => {
    const bytes = ascii(receipt(11));
    for (let bit = 0; bit < bytes.length * 8; bit++) {
      const changed = Buffer.from(flipBit(bytes, bit)).toString('utf8');
      expect(verifyTlogProof(changed, [log.verifier]).ok, `bit ${bit}`).toBe(false);
    }
  });
});

describe('tlog-proof text', () => {
  it('parses the spec example, whose elided signatures cannot be checked', () => {
    const { proof, index, hashCount } = vectors.c2spExample;
    const parsed = parseTlogProof(proof);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.value.index).toBe(index);
    expect(parsed.value.inclusionProof).toHaveLength(hashCount);
    expect(parsed.value.checkpoint.startsWith('example.com/fancylog\n109482\n')).toBe(true);
    expect(parsed.value.extra).toEqual(b64('YWdlLXYxLjIuMS1kYXJ3aW4tYXJtNjQudGFyLmd6kYXJ3aW4tYXJ'));
    const result = verifyTlogProof(proof, [log.verifier]);
    expect(result.ok === false && result.reason.startsWith('checkpoint rejected:')).toBe(true);
  });

  const hashTooLong = `c2sp.org/tlog-proof@v1\nindex 0\n${Buffer.alloc(64).toString('base64')}\n\ncheckpoint\n`;
  it.each([...vectors.merkleErrors.cases, { name: 'hash too long', proof: hashTooLong }])(
    'rejects the transparency-dev/merkle error case "$name"',
    ({ proof }) => {
      expect(parseTlogProof(proof).ok).toBe(false);
      const result = verifyTlogProof(proof, [log.verifier]);
      expect(result.ok === false && result.reason.startsWith('malformed proof:')).toBe(true);
    },
  );

  const good = receipt(0);
  const malformed: [string, string][] = [
    ['an index with a leading zero', good.replace('index 0', 'index 00')],
    ['an index above 2^53 - 1', good.replace('index 0', 'index 9007199254740992')],
    ['the extra line after the index', good.replace(/^(.*\n)(extra .*\n)(index .*\n)/, '$1$3$2')],
    ['no empty line before the checkpoint', good.replace('\n\n', '\n')],
    ['no checkpoint', good.slice(0, good.indexOf('\n\n') + 2)],
    ['another version', good.replace('tlog-proof@v1', 'tlog-proof@v2')],
    ['a 31-byte hash', good.replace(/\nindex 0\n[^\n]+\n/, '\nindex 0\nAAAA\n')],
    ['an unterminated last line', 'c2sp.org/tlog-proof@v1\nindex 0'],
  ];

  it.each(malformed)('rejects a proof with %s', (_, text) => {
    expect(parseTlogProof(text).ok).toBe(false);
  });

  it('refuses to format values the format cannot carry', () => {
    const proof = { index: 0, inclusionProof: [], checkpoint: signedCheckpoint };
    expect(() => formatTlogProof({ ...proof, index: -1 })).toThrow(RangeError);
    expect(() => formatTlogProof({ ...proof, inclusionProof: [new Uint8Array(31)] })).toThrow(
      RangeError,
    );
    expect(() => formatTlogProof({ ...proof, checkpoint: 'no newline' })).toThrow(RangeError);
  });
});
