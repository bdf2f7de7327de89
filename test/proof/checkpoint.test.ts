import { describe, expect, it } from 'vitest';
import {
  type Checkpoint,
  formatCheckpoint,
  generateNoteKeys,
  type NoteSigner,
  type NoteVerifier,
  openCheckpoint,
  parseCheckpoint,
  parseNote,
  parseSignerKey,
  parseVerifierKey,
  signCheckpoint,
} from '../../src/proof/index.js';
import { b64, loadFixture } from './fixtures.js';

interface CheckpointVectors {
  sumdb: {
    verifierKey: string;
    signedCheckpoint: string;
    origin: string;
    size: number;
    rootHash: string;
  };
  c2spExample: { signedCheckpoint: string; origin: string; size: number; rootHash: string };
  formatsUnmarshal: { cases: { desc: string; text: string; formatsAccepts: boolean }[] };
}

const vectors = loadFixture<CheckpointVectors>('checkpoint.json');

function keysFor(name: string): { signer: NoteSigner; verifier: NoteVerifier } {
  const pair = generateNoteKeys(name);
  const signer = parseSignerKey(pair.signerKey);
  const verifier = parseVerifierKey(pair.verifierKey);
  if (!signer.ok || !verifier.ok) throw new Error('generated keys do not parse');
  return { signer: signer.value, verifier: verifier.value };
}

const origin = 'consent.example/log/tenant-1';
const log = keysFor(origin);
const checkpoint: Checkpoint = {
  origin,
  size: 20_852_163,
  rootHash: b64('CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I='),
  extensions: [],
};

describe('checkpoint text', () => {
  it('formats the three lines of the spec', () => {
    expect(formatCheckpoint(checkpoint)).toBe(
      `${origin}\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n`,
    );
  });

  it('round-trips, extension lines included', () => {
    for (const extensions of [[], ['one'], ['one', 'two 2']]) {
      const value = { ...checkpoint, extensions };
      expect(parseCheckpoint(formatCheckpoint(value))).toEqual({ ok: true, value });
    }
    const empty = { ...checkpoint, size: 0 };
    expect(parseCheckpoint(formatCheckpoint(empty))).toEqual({ ok: true, value: empty });
  });

  it('parses the body of the tlog-checkpoint spec example', () => {
    const { signedCheckpoint, size, rootHash } = vectors.c2spExample;
    const note = parseNote(signedCheckpoint);
    if (!note.ok) throw new Error(note.reason);
    expect(parseCheckpoint(note.value.text)).toEqual({
      ok: true,
      value: { origin: vectors.c2spExample.origin, size, rootHash: b64(rootHash), extensions: [] },
    });
  });

  it.each(vectors.formatsUnmarshal.cases)(
    'rejects the transparency-dev/formats input "$desc" (no 32-byte root)',
    ({ text }) => {
      expect(parseCheckpoint(text).ok).toBe(false);
    },
  );

  const root = 'CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=';
  const malformed: [string, string][] = [
    ['a size with a leading zero', `log\n0123\n${root}\n`],
    ['a size with a plus sign', `log\n+123\n${root}\n`],
    ['a size with a space', `log\n 123\n${root}\n`],
    ['a size in hexadecimal', `log\n0x10\n${root}\n`],
    ['a size above 2^53 - 1', `log\n9007199254740992\n${root}\n`],
    ['a 31-byte root hash', `log\n1\n${root.slice(0, 40)}Ag==\n`],
    ['a 33-byte root hash', `log\n1\n${root.slice(0, -1)}A\n`],
    ['a non-canonical root hash', `log\n1\n${root.replace('2I=', '2J=')}\n`],
    ['a root hash without padding', `log\n1\n${root.slice(0, -1)}\n`],
    ['no final newline', `log\n1\n${root}`],
    ['an empty origin', `\n1\n${root}\n`],
    ['an empty extension line', `log\n1\n${root}\n\nx\n`],
    ['a trailing empty line', `log\n1\n${root}\n\n`],
    ['a carriage return', `log\r\n1\n${root}\n`],
    ['two lines only', `log\n1\n`],
  ];

  it.each(malformed)('rejects a checkpoint with %s', (_, text) => {
    expect(parseCheckpoint(text).ok).toBe(false);
  });

  it('refuses to format values the format cannot carry', () => {
    const bad: Checkpoint[] = [
      { ...checkpoint, origin: '' },
      { ...checkpoint, origin: 'a\nb' },
      { ...checkpoint, size: -1 },
      { ...checkpoint, size: 1.5 },
      { ...checkpoint, size: 2 ** 53 },
      { ...checkpoint, rootHash: new Uint8Array(31) },
      { ...checkpoint, extensions: [''] },
      { ...checkpoint, extensions: ['a\nb'] },
    ];
    for (const value of bad) expect(() => formatCheckpoint(value)).toThrow(RangeError);
  });
});

describe('signed checkpoints', () => {
  it('sign and open round-trip', () => {
    const signed = signCheckpoint(checkpoint, [log.signer]);
    const opened = openCheckpoint(signed, [log.verifier], { origin });
    expect(opened.ok && opened.value.checkpoint).toEqual(checkpoint);
    expect(opened.ok && opened.value.note.verified.map((s) => s.name)).toEqual([origin]);
  });

  it('opens the sum.golang.org checkpoint with its published key', () => {
    const key = parseVerifierKey(vectors.sumdb.verifierKey);
    if (!key.ok) throw new Error(key.reason);
    const opened = openCheckpoint(vectors.sumdb.signedCheckpoint, [key.value], {
      origin: vectors.sumdb.origin,
    });
    expect(opened.ok && opened.value.checkpoint).toEqual({
      origin: vectors.sumdb.origin,
      size: vectors.sumdb.size,
      rootHash: b64(vectors.sumdb.rootHash),
      extensions: [],
    });
  });

  it('rejects a checkpoint signed by another key', () => {
    const other = keysFor(origin);
    const signed = signCheckpoint(checkpoint, [other.signer]);
    expect(openCheckpoint(signed, [log.verifier])).toEqual({
      ok: false,
      reason: 'no signature from a trusted key',
    });
  });

  it('rejects a checkpoint of another origin when an origin is expected', () => {
    const signed = signCheckpoint(checkpoint, [log.signer]);
    const opened = openCheckpoint(signed, [log.verifier], { origin: 'consent.example/log/other' });
    expect(opened.ok).toBe(false);
  });

  it('rejects a validly signed note whose text is not a checkpoint', () => {
    const signed = signCheckpoint(checkpoint, [log.signer]).replace('20852163', '020852163');
    expect(openCheckpoint(signed, [log.verifier]).ok).toBe(false);
  });

  it('rejects any changed size or root after signing', () => {
    const signed = signCheckpoint(checkpoint, [log.signer]);
    const biggerSize = signed.replace('\n20852163\n', '\n20852164\n');
    const otherRoot = signed.replace('CsUYapGG', 'DsUYapGG');
    expect(openCheckpoint(biggerSize, [log.verifier])).toMatchObject({ ok: false });
    expect(openCheckpoint(otherRoot, [log.verifier])).toMatchObject({ ok: false });
  });
});
