import { describe, expect, it } from 'vitest';
import {
  consistencyProof,
  cosignatureTime,
  formatAddCheckpoint,
  generateCosignerKeys,
  generateNoteKeys,
  leafHash,
  openWitnessedCheckpoint,
  parseAddCheckpoint,
  parseCosignerKey,
  parseCosignerVerifierKey,
  parseKnownSize,
  parseSignerKey,
  parseVerifierKey,
  rootOf,
  signCheckpoint,
} from '../../src/proof/index.js';
import { must } from './fixtures.js';

// Reference vector, computed outside this code with OpenSSL 3: an Ed25519 key of seed
// 0x20..0x3f, `openssl pkeyutl -sign -rawin` over the cosignature/v1 message of the C2SP
// tlog-cosignature example, and the key id as `openssl dgst -sha256` of
// "witness.example.com/w1\n" || 0x04 || public key, first four bytes.
const vector = {
  signerKey:
    'PRIVATE+KEY+witness.example.com/w1+969980cf+BCAhIiMkJSYnKCkqKywtLi8wMTIzNDU2Nzg5Ojs8PT4/',
  verifierKey: 'witness.example.com/w1+969980cf+BCmsuuFBvMrwsi4alNNNC8c2HlJtC/4SyJeUvJMilm3X',
  checkpoint:
    'example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n',
  time: 1679315147,
  line: '\u2014 witness.example.com/w1 lpmAzwAAAABkGFDL6ade/xdmW0GepsICyPher/bBsso0aCocxkD4MgnQ2J3N/61CxrucC0uO4wzUWe3K7XvjkEYtewKXIfP/U7l4Cw==\n',
};

// The example request body of C2SP tlog-witness, `add-checkpoint`, verbatim.
const specRequest = `old 20852014
PlRNCrwHpqhGrupue0L7gxbjbMiKA9temvuZZDDpkaw=
jrJZDmY8Y7SyJE0MWLpLozkIVMSMZcD5kvuKxPC3swk=
5+pKlUdi2LeF/BcMHBn+Ku6yhPGNCswZZD1X/6QgPd8=
/6WVhPs2CwSsb5rYBH5cjHV/wSmA79abXAwhXw3Kj/0=

example.com/behind-the-sofa
20852163
CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=

\u2014 example.com/behind-the-sofa Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5/Zhcyv2q1gGzGku9nTo+zyWE+xeMcTOAYQ8=
\u2014 example.com/behind-the-sofa opLqBQsREYCgu6xQkYQwJr9fo45a62DN9EdmHXnZdXNqlcVGlCum2Wks+49/V6267UEjw6QUXTS5Rovnzv++qbSzm9Q=
`;

describe('cosignature/v1 (C2SP tlog-cosignature, Ed25519)', () => {
  it('signs the reference vector byte for byte, with the key id OpenSSL computed', () => {
    const cosigner = must(parseCosignerKey(vector.signerKey));
    expect(cosigner.verifierKey).toBe(vector.verifierKey);
    expect(cosigner.keyId).toBe(0x969980cf);
    expect(cosigner.cosign(vector.checkpoint, vector.time)).toBe(vector.line);
  });

  it("carries the time in the signature's first eight bytes, as the spec's example does", () => {
    // The spec's own example line: key id jWbPPw==, then 0x00000000641850CB.
    const spec = Buffer.from(
      'jWbPPwAAAABkGFDLEZMHwSRaJNiIDoe9DYn/zXcrtPHeolMI5OWXEhZCB9dlrDJsX3b2oyin1nPZqhf5nNo0xUe+mbIUBkBIfZ+qnA==',
      'base64',
    );
    expect(cosignatureTime(Uint8Array.from(spec.subarray(4)))).toBe(1679315147);
    expect(cosignatureTime(new Uint8Array(71))).toBeUndefined();
    expect(cosignatureTime(new Uint8Array(72))).toBeUndefined(); // time zero is refused
  });

  it('verifies the vector as a note signature, and no altered byte of it', () => {
    const witness = must(parseCosignerVerifierKey(vector.verifierKey));
    const log = generateNoteKeys('example.com/behind-the-sofa');
    const logSigner = must(parseSignerKey(log.signerKey));
    const logVerifier = must(parseVerifierKey(log.verifierKey));
    const checkpoint = signCheckpoint(
      {
        origin: 'example.com/behind-the-sofa',
        size: 20852163,
        rootHash: Buffer.from('CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=', 'base64'),
        extensions: [],
      },
      [logSigner],
    );
    const cosigned = checkpoint + vector.line;
    const opened = must(openWitnessedCheckpoint(cosigned, [logVerifier], [witness], 1));
    expect(opened.witnesses).toEqual([{ name: 'witness.example.com/w1', time: 1679315147 }]);
    expect(opened.checkpoint.size).toBe(20852163);

    const signature = vector.line.slice(vector.line.lastIndexOf(' ') + 1, -1);
    const bytes = Buffer.from(signature, 'base64');
    for (const at of [4, 11, 12, 40, 75]) {
      const altered = Buffer.from(bytes);
      altered[at] = (altered[at] as number) ^ 0x01;
      const line = `\u2014 witness.example.com/w1 ${altered.toString('base64')}\n`;
      const result = openWitnessedCheckpoint(checkpoint + line, [logVerifier], [witness], 1);
      expect(result.ok, `byte ${at}`).toBe(false);
    }
    // A cosignature of the same witness on another checkpoint does not transfer.
    const other = must(parseCosignerKey(vector.signerKey)).cosign(
      vector.checkpoint.replace('20852163', '20852164'),
      vector.time,
    );
    expect(openWitnessedCheckpoint(checkpoint + other, [logVerifier], [witness], 1).ok).toBe(false);
  });

  it('counts a quorum of distinct witnesses, and ignores lines by unknown keys', () => {
    const log = generateNoteKeys('log.example/a');
    const logSigner = must(parseSignerKey(log.signerKey));
    const logVerifier = must(parseVerifierKey(log.verifierKey));
    const keys = ['w.example/1', 'w.example/2', 'w.example/3'].map(generateCosignerKeys);
    const cosigners = keys.map((k) => must(parseCosignerKey(k.signerKey)));
    const verifiers = keys.map((k) => must(parseCosignerVerifierKey(k.verifierKey)));
    const hashes = ['a', 'b', 'c'].map((s) => leafHash(Buffer.from(s)));
    const text = `log.example/a\n3\n${Buffer.from(rootOf(hashes)).toString('base64')}\n`;
    const checkpoint = signCheckpoint(
      { origin: 'log.example/a', size: 3, rootHash: rootOf(hashes), extensions: [] },
      [logSigner],
    );
    const two = checkpoint + cosigners[0]?.cosign(text, 10) + cosigners[1]?.cosign(text, 11);
    expect(must(openWitnessedCheckpoint(two, [logVerifier], verifiers, 2)).witnesses).toEqual([
      { name: 'w.example/1', time: 10 },
      { name: 'w.example/2', time: 11 },
    ]);
    const quorum = openWitnessedCheckpoint(two, [logVerifier], verifiers, 3);
    expect(quorum).toEqual({
      ok: false,
      reason: '2 of the given witnesses cosigned the checkpoint; the quorum is 3',
    });
    // The same witness twice counts once.
    const twice = checkpoint + cosigners[0]?.cosign(text, 10) + cosigners[0]?.cosign(text, 12);
    expect(openWitnessedCheckpoint(twice, [logVerifier], verifiers, 2).ok).toBe(false);
    // Only witnesses' signatures, without the log's: refused.
    const unsigned = `${text}\n${cosigners[0]?.cosign(text, 10)}`;
    expect(openWitnessedCheckpoint(unsigned, [logVerifier], verifiers, 1).ok).toBe(false);
    // A witness key is not a log key, nor the reverse.
    expect(parseVerifierKey(keys[0]?.verifierKey as string)).toMatchObject({ ok: false });
    expect(parseCosignerVerifierKey(log.verifierKey)).toMatchObject({ ok: false });
  });
});

describe('tlog-witness add-checkpoint body', () => {
  it("reads the spec's example request", () => {
    const request = must(parseAddCheckpoint(specRequest));
    expect(request.oldSize).toBe(20852014);
    expect(request.proof.map((h) => Buffer.from(h).toString('base64'))).toEqual([
      'PlRNCrwHpqhGrupue0L7gxbjbMiKA9temvuZZDDpkaw=',
      'jrJZDmY8Y7SyJE0MWLpLozkIVMSMZcD5kvuKxPC3swk=',
      '5+pKlUdi2LeF/BcMHBn+Ku6yhPGNCswZZD1X/6QgPd8=',
      '/6WVhPs2CwSsb5rYBH5cjHV/wSmA79abXAwhXw3Kj/0=',
    ]);
    expect(request.checkpoint.startsWith('example.com/behind-the-sofa\n20852163\n')).toBe(true);
    expect(request.checkpoint.endsWith('+qbSzm9Q=\n')).toBe(true);
    // And writes it back byte for byte.
    expect(formatAddCheckpoint(request)).toBe(specRequest);
  });

  it('refuses malformed bodies', () => {
    const checkpoint = specRequest.slice(specRequest.indexOf('\n\n') + 2);
    for (const body of [
      `old 01\n\n${checkpoint}`,
      `old -1\n\n${checkpoint}`,
      `new 1\n\n${checkpoint}`,
      `old 1\nnot-base64\n\n${checkpoint}`,
      `old 1\nAAAA\n\n${checkpoint}`,
      `old 1\n${'PlRNCrwHpqhGrupue0L7gxbjbMiKA9temvuZZDDpkaw=\n'.repeat(64)}\n${checkpoint}`,
      'old 1\n',
    ]) {
      expect(parseAddCheckpoint(body).ok, body.slice(0, 20)).toBe(false);
    }
    const hashes = Array.from({ length: 9 }, (_, i) => leafHash(Buffer.from([i])));
    const proof = consistencyProof(hashes, 5);
    expect(
      must(parseAddCheckpoint(formatAddCheckpoint({ oldSize: 5, proof, checkpoint }))).proof,
    ).toEqual(proof);
  });

  it("reads a 409's size: a decimal number and a newline", () => {
    expect(parseKnownSize('20852014\n')).toEqual({ ok: true, value: 20852014 });
    for (const body of ['20852014', '020\n', 'x\n', '']) {
      expect(parseKnownSize(body).ok).toBe(false);
    }
  });
});
