import { describe, expect, it } from 'vitest';
import {
  formatVerifierKey,
  generateNoteKeys,
  type NoteSigner,
  type NoteVerifier,
  noteKeyId,
  openNote,
  parseNote,
  parseSignerKey,
  parseVerifierKey,
  signNote,
} from '../../src/proof/index.js';
import { flipBit, loadFixture } from './fixtures.js';

interface NoteVectors {
  golangNote: {
    peterVerifierKey: string;
    peterSignerKey: string;
    peterKeyId: string;
    enochVerifierKey: string;
    text: string;
    peterSignatureLine: string;
    enochSignatureLine: string;
    peterSignedNote: string;
    badVerifierKeys: { key: string; why: string }[];
  };
  c2spExample: { signedNote: string; text: string; keyName: string };
  formatsKeys: { pairs: { verifierKey: string; signerKey: string }[] };
}
interface CheckpointVectors {
  sumdb: {
    verifierKey: string;
    signedCheckpoint: string;
    benchmarkVerifierKeys: string[];
    benchmarkSignatureLines: string[];
  };
}

const vectors = loadFixture<NoteVectors>('signed-note.json');
const sumdb = loadFixture<CheckpointVectors>('checkpoint.json').sumdb;
const go = vectors.golangNote;

function verifier(text: string): NoteVerifier {
  const parsed = parseVerifierKey(text);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.value;
}

function signer(text: string): NoteSigner {
  const parsed = parseSignerKey(text);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.value;
}

const peter = verifier(go.peterVerifierKey);
const enoch = verifier(go.enochVerifierKey);

describe('note keys', () => {
  it('reads the PeterNeumann verifier and signer keys of golang.org/x/mod/sumdb/note', () => {
    expect(peter.name).toBe('PeterNeumann');
    expect(peter.keyId.toString(16)).toBe(go.peterKeyId);
    expect(noteKeyId(peter.name, peter.publicKey)).toBe(peter.keyId);
    expect(formatVerifierKey(peter.name, peter.publicKey)).toBe(go.peterVerifierKey);
    const peterSigner = signer(go.peterSignerKey);
    expect(peterSigner.keyId).toBe(peter.keyId);
    expect(peterSigner.verifierKey).toBe(go.peterVerifierKey);
  });

  it.each(vectors.formatsKeys.pairs)(
    'derives $verifierKey from its signer key',
    ({ verifierKey, signerKey }) => {
      expect(signer(signerKey).verifierKey).toBe(verifierKey);
      expect(verifier(verifierKey).verifierKey).toBe(verifierKey);
    },
  );

  it('generates key pairs whose texts round-trip and whose signatures verify', () => {
    const pair = generateNoteKeys('consent.example/log/tenant-1');
    const made = signer(pair.signerKey);
    const check = verifier(pair.verifierKey);
    expect(made.verifierKey).toBe(pair.verifierKey);
    expect(check.keyId).toBe(made.keyId);
    expect(pair.verifierKey).toMatch(
      /^consent\.example\/log\/tenant-1\+[0-9a-f]{8}\+[A-Za-z0-9+/]{44}$/,
    );
    expect(formatVerifierKey(check.name, check.publicKey)).toBe(pair.verifierKey);
    const message = new TextEncoder().encode('hi\n');
    expect(check.verify(message, made.sign(message))).toBe(true);
    expect(check.verify(message, flipBit(made.sign(message), 0))).toBe(false);
  });

  it('refuses key names with a space or a plus', () => {
    for (const name of ['', 'a b', 'a+b', 'a\tb', 'a\u00a0b', 'a\nb', 'a\u0001b']) {
      expect(() => generateNoteKeys(name)).toThrow(RangeError);
    }
  });

  it.each(go.badVerifierKeys)('rejects the verifier key with $why', ({ key }) => {
    expect(parseVerifierKey(key).ok).toBe(false);
  });

  it('rejects every substring and every single-byte change of a verifier key', () => {
    const key = go.peterVerifierKey;
    for (let i = 0; i <= key.length; i++) {
      for (let j = i + 1; j <= key.length; j++) {
        if (i === 0 && j === key.length) continue;
        expect(parseVerifierKey(key.slice(i, j)).ok, key.slice(i, j)).toBe(false);
      }
    }
    for (let i = 0; i < key.length; i++) {
      const changed =
        key.slice(0, i) + String.fromCharCode(key.charCodeAt(i) + 1) + key.slice(i + 1);
      expect(parseVerifierKey(changed).ok, changed).toBe(false);
    }
  });

  it('rejects every substring and every single-byte change of a signer key', () => {
    const key = go.peterSignerKey;
    for (let i = 0; i <= key.length; i++) {
      for (let j = i + 1; j <= key.length; j++) {
        if (i === 0 && j === key.length) continue;
        expect(parseSignerKey(key.slice(i, j)).ok, key.slice(i, j)).toBe(false);
      }
    }
    for (let i = 0; i < key.length; i++) {
      const changed =
        key.slice(0, i) + String.fromCharCode(key.charCodeAt(i) + 1) + key.slice(i + 1);
      expect(parseSignerKey(changed).ok, changed).toBe(false);
    }
  });

  it('does not take a signer key for a verifier key, or the reverse', () => {
    expect(parseVerifierKey(go.peterSignerKey).ok).toBe(false);
    expect(parseSignerKey(go.peterVerifierKey).ok).toBe(false);
  });
});

describe('signed notes', () => {
  it('signs the reference text into the exact reference note (Ed25519 is deterministic)', () => {
    expect(signNote(go.text, [signer(go.peterSignerKey)])).toBe(go.peterSignedNote);
  });

  it('opens the reference note with the PeterNeumann key', () => {
    const opened = openNote(go.peterSignedNote, [peter]);
    expect(opened).toMatchObject({ ok: true, value: { text: go.text, unverified: [] } });
    if (!opened.ok) return;
    expect(opened.value.verified).toHaveLength(1);
    expect(opened.value.verified[0]).toMatchObject({ name: 'PeterNeumann', keyId: peter.keyId });
  });

  it('opens the note as bytes too', () => {
    expect(openNote(new TextEncoder().encode(go.peterSignedNote), [peter]).ok).toBe(true);
  });

  it('keeps a signature by an unknown key aside and verifies both when both keys are known', () => {
    const doublySigned = `${go.text}\n${go.peterSignatureLine}${go.enochSignatureLine}`;
    const onlyPeter = openNote(doublySigned, [peter]);
    expect(onlyPeter.ok && onlyPeter.value.verified.map((s) => s.name)).toEqual(['PeterNeumann']);
    expect(onlyPeter.ok && onlyPeter.value.unverified.map((s) => s.name)).toEqual(['EnochRoot']);
    const both = openNote(doublySigned, [peter, enoch]);
    expect(both.ok && both.value.verified.map((s) => s.name)).toEqual([
      'PeterNeumann',
      'EnochRoot',
    ]);
    const neither = openNote(doublySigned, []);
    expect(neither).toEqual({ ok: false, reason: 'no signature from a trusted key' });
  });

  it('verifies the cosignatures of the sum.golang.org checkpoint and ignores look-alike keys', () => {
    const keys = [sumdb.verifierKey, ...sumdb.benchmarkVerifierKeys].map(verifier);
    const note = `${sumdb.signedCheckpoint}${sumdb.benchmarkSignatureLines.join('\n')}\n`;
    const opened = openNote(note, keys);
    expect(opened.ok).toBe(true);
    if (!opened.ok) return;
    expect(opened.value.verified.map((s) => s.name)).toEqual([
      'sum.golang.org',
      'monkeys',
      'bananas',
      'witness',
    ]);
    // random1 and random2 reuse the witness key id under another name: unknown keys.
    expect(opened.value.unverified.map((s) => s.name)).toEqual(['random1', 'random2']);
  });

  it('ignores a signature that shares the key id but not the name, or the name but not the id', () => {
    const renamed = go.peterSignedNote.replace('— PeterNeumann ', '— PeterNeuman ');
    expect(openNote(renamed, [peter])).toEqual({
      ok: false,
      reason: 'no signature from a trusted key',
    });
    const otherId = go.peterSignedNote.replace(' x08g', ' xxxx');
    expect(openNote(otherId, [peter])).toEqual({
      ok: false,
      reason: 'no signature from a trusted key',
    });
  });

  it('fails on any single bit flip anywhere in the signed note', () => {
    const bytes = new TextEncoder().encode(go.peterSignedNote);
    for (let bit = 0; bit < bytes.length * 8; bit++) {
      expect(openNote(flipBit(bytes, bit), [peter]).ok, `bit ${bit}`).toBe(false);
    }
  });

  it('rejects a failing signature by a trusted key even when another trusted one verifies', () => {
    const bad = go.peterSignatureLine.replace('x08go/ZJ', 'x08go/ZK');
    const note = `${go.text}\n${go.enochSignatureLine}${bad}`;
    expect(openNote(note, [peter, enoch])).toEqual({
      ok: false,
      reason: `invalid signature for key PeterNeumann+${go.peterKeyId}`,
    });
  });

  it('rejects a trust list with two different keys under one name and key id', () => {
    const impostor: NoteVerifier = { ...peter, publicKey: enoch.publicKey };
    expect(openNote(go.peterSignedNote, [peter, impostor])).toEqual({
      ok: false,
      reason: `ambiguous verifier key PeterNeumann+${go.peterKeyId}`,
    });
    expect(openNote(go.peterSignedNote, [peter, peter]).ok).toBe(true);
  });

  it('parses the signed-note spec example, whose key is not published', () => {
    const { signedNote, text, keyName } = vectors.c2spExample;
    const parsed = parseNote(signedNote);
    expect(parsed.ok && parsed.value.text).toBe(text);
    expect(parsed.ok && parsed.value.signatures.map((s) => [s.name, s.signature.length])).toEqual([
      [keyName, 64],
    ]);
    expect(openNote(signedNote, [peter]).ok).toBe(false);
  });

  // The malformed messages of golang.org/x/mod/sumdb/note TestOpen, built the same way.
  const encoder = new TextEncoder();
  const malformed: [string, string | Uint8Array][] = [
    ['no signatures', go.text],
    ['blank line but no signatures', `${go.text}\n`],
    ['signature line without its newline', `${go.text}\n${go.peterSignatureLine.slice(0, -1)}`],
    ['a control character', `\u0001${go.text}\n${go.peterSignatureLine}`],
    [
      'invalid UTF-8',
      Uint8Array.from([0xff, ...encoder.encode(`${go.text}\n${go.peterSignatureLine}`)]),
    ],
    [
      'a key name with a space',
      `${go.text}\n— Bad Name x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=`,
    ],
    ['a line after the signatures', `${go.text}\n${go.peterSignatureLine}Unexpected line.\n`],
    ['101 signatures', `${go.text}\n${go.peterSignatureLine.repeat(101)}`],
    ['a hyphen for the em dash', `${go.text}\n${go.peterSignatureLine.replace('—', '-')}`],
    ['a signature with only a key id', `${go.text}\n— PeterNeumann x08gow==\n`],
    [
      'a non-canonical base64 signature',
      `${go.text}\n${go.peterSignatureLine.replace('AM=', 'AN=')}`,
    ],
    ['a carriage return', go.peterSignedNote.replace('\n', '\r\n')],
    ['a lone surrogate', `\ud800${go.peterSignedNote}`],
  ];

  it.each(malformed)('rejects a note with %s', (_, message) => {
    expect(parseNote(message).ok).toBe(false);
    expect(openNote(message, [peter]).ok).toBe(false);
  });

  it('accepts 100 signatures, the limit, and counts one verified signature per key', () => {
    const note = `${go.text}\n${go.peterSignatureLine.repeat(100)}`;
    const opened = openNote(note, [peter]);
    expect(opened.ok && opened.value.verified).toHaveLength(1);
  });

  it('refuses to sign text that a note cannot carry', () => {
    const peterSigner = signer(go.peterSignerKey);
    expect(() => signNote('abc', [peterSigner])).toThrow(RangeError);
    expect(() => signNote('a\rb\n', [peterSigner])).toThrow(RangeError);
    expect(() => signNote(go.text, [])).toThrow(RangeError);
  });

  it('signs texts with blank lines, and a text that is only a newline', () => {
    const pair = generateNoteKeys('example.com/log');
    const keys = { signer: signer(pair.signerKey), verifier: verifier(pair.verifierKey) };
    for (const text of ['\n', 'a\n\nb\n', 'a\n\n', '— not a signature\n']) {
      const opened = openNote(signNote(text, [keys.signer]), [keys.verifier]);
      expect(opened.ok && opened.value.text).toBe(text);
    }
  });
});
