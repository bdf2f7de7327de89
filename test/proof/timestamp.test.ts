import { createHash, X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  readTimestampResponse,
  timestampRequest,
  verifyTimestampToken,
} from '../../src/proof/index.js';
import { budget } from '../helpers/time.js';
import {
  makeTestCa,
  opensslQuery,
  opensslQueryText,
  opensslReadResponse,
  opensslVerifyToken,
  requestTimestamp,
  startTestTsa,
  type TestCa,
  type TestTsa,
  testTsaAccuracyMs,
  testTsaName,
  testTsaPolicy,
} from '../helpers/tsa.js';
import { ascii, flipBit, hex, toHex } from './fixtures.js';

// A signed checkpoint (C2SP signed note) as the service will send it to a TSA.
const checkpoint = ascii(
  'consent.example/log/tenant-1\n42\nqOa2lCsX0i2wrPB5Xo9fqkYoSiWW6ZzpEsfpYN5QbLs=\n\n' +
    '— consent.example/log/tenant-1 Az3grlG8h4d2F5n5NnZ1PzUQ3pZrKxYKQ8YdO9kqHs0m6QEVCbtr2qP8Rt2yqN1bEcZkCYX+fq3Fv4r0B0gK8a1oRZU=\n',
);

/**
 * `openssl ts -query -data <checkpoint> -sha256 -cert` (OpenSSL 3.0.19), run twice: openssl
 * picks the nonce, read back with `-text`. One nonce has its top bit set (DER adds a 00 byte),
 * the other a leading zero nibble.
 */
const opensslRequests = [
  {
    nonce: 0x8d3b09128a116e63n,
    der: '30440201013031300d060960864801650304020105000420bfa86b5e5088a386c195f7a43dfb45fc8d4afdb29fd08a9ea70f6001fc83eb990209008d3b09128a116e630101ff',
  },
  {
    nonce: 0x03f6f23405b8a2b5n,
    der: '30430201013031300d060960864801650304020105000420bfa86b5e5088a386c195f7a43dfb45fc8d4afdb29fd08a9ea70f6001fc83eb99020803f6f23405b8a2b50101ff',
  },
];

const sha256 = (bytes: Uint8Array) => new Uint8Array(createHash('sha256').update(bytes).digest());
const der = (pem: string) => new Uint8Array(new X509Certificate(pem).raw);
const fingerprint = (pem: string) => new X509Certificate(pem).fingerprint256;

/** Where `part` starts in `bytes`; throws when it is not there, so a test never flips nothing. */
function offsetOf(bytes: Uint8Array, part: Uint8Array): number {
  const at = Buffer.from(bytes).indexOf(Buffer.from(part));
  if (at < 0) throw new Error(`${toHex(part)} is not in the token`);
  return at;
}

/** A token from `tsa` for `message`, and the moments just before and after the request. */
async function stamp(tsa: TestTsa, message: Uint8Array) {
  const request = timestampRequest(message);
  const before = Date.now();
  const response = await requestTimestamp(tsa.url, request.der);
  const after = Date.now();
  const token = readTimestampResponse(response);
  if (!token.ok) throw new Error(token.reason);
  return { token: token.value, response, nonce: request.nonce, before, after };
}

/** Parses the `Nonce: 0x…` line of openssl's `-text` output. */
function opensslNonce(text: string): bigint {
  const match = /Nonce: (0x[0-9A-F]+)/.exec(text);
  if (!match?.[1]) throw new Error(`no nonce in ${text}`);
  return BigInt(match[1]);
}

describe('RFC 3161 time-stamps from a real openssl TSA', () => {
  let tsa: TestTsa;
  let expiredTsa: TestTsa;
  let essV1Tsa: TestTsa;
  let badTsa: TestTsa;
  let stranger: TestCa;
  let good: Awaited<ReturnType<typeof stamp>>;

  beforeAll(async () => {
    [tsa, expiredTsa, essV1Tsa, badTsa, stranger] = await Promise.all([
      startTestTsa(),
      startTestTsa({ expired: true }),
      startTestTsa({ essCertIdAlg: 'sha1' }),
      startTestTsa(),
      makeTestCa(),
    ]);
    good = await stamp(tsa, checkpoint);
  });

  afterAll(async () => {
    await Promise.all([
      tsa?.close(),
      expiredTsa?.close(),
      essV1Tsa?.close(),
      badTsa?.close(),
      stranger?.remove(),
    ]);
  });

  describe('a granted token', () => {
    it('verifies: genTime between the moments before and after the request, the nonce echoed', () => {
      const verified = verifyTimestampToken(good.token, checkpoint, {
        roots: [tsa.rootPem],
        nonce: good.nonce,
      });
      if (!verified.ok) throw new Error(verified.reason);
      const { genTime, accuracyMs } = verified.value;
      // openssl writes whole seconds (clock_precision_digits = 0), within the stated accuracy.
      expect(accuracyMs).toBe(testTsaAccuracyMs);
      const earliest = Math.floor(good.before / 1000) * 1000 - testTsaAccuracyMs;
      expect(genTime.getTime()).toBeGreaterThanOrEqual(earliest);
      expect(genTime.getTime()).toBeLessThanOrEqual(good.after + testTsaAccuracyMs);
      expect(verified.value.nonce).toBe(good.nonce);
      expect(verified.value.policy).toBe(testTsaPolicy);
      expect(verified.value.tsaName).toBe(testTsaName);
      expect(verified.value.certificates.map(fingerprint)).toEqual(
        [tsa.tsaCertPem, tsa.intermediatePem, tsa.rootPem].map(fingerprint),
      );
    });

    it('states what openssl reads in the response: the token, serial number, time, policy, nonce', async () => {
      const read = await opensslReadResponse(good.response);
      expect(read.text).toContain('Status: Granted.');
      expect(toHex(good.token)).toBe(toHex(read.token ?? new Uint8Array()));
      const verified = verifyTimestampToken(good.token, checkpoint, { roots: [tsa.rootPem] });
      if (!verified.ok) throw new Error(verified.reason);
      const serial = /Serial number: 0x([0-9A-F]+)/.exec(read.text)?.[1];
      expect(verified.value.serialNumber).toBe(serial?.toLowerCase());
      const time = /Time stamp: (.+ GMT)/.exec(read.text)?.[1];
      expect(verified.value.genTime.getTime()).toBe(Date.parse(time ?? ''));
      expect(read.text).toContain(`Policy OID: ${verified.value.policy}`);
      expect(opensslNonce(read.text)).toBe(good.nonce);
    });

    it('is accepted by openssl ts -verify, the independent check', async () => {
      const checked = await opensslVerifyToken(good.token, checkpoint, tsa.rootFile);
      expect(checked.output).toContain('Verification: OK');
      expect(checked.ok).toBe(true);
    });

    it('carries an RFC 5816 ESSCertIDv2 of the signer certificate (ess_cert_id_alg sha256)', () => {
      const signingCertificateV2 = hex('060b2a864886f70d010910022f');
      expect(offsetOf(good.token, signingCertificateV2)).toBeGreaterThan(0);
      expect(offsetOf(good.token, sha256(der(tsa.tsaCertPem)))).toBeGreaterThan(0);
    });

    it('checked at a moment after the TSA certificate ends, fails as expired; inside, verifies', () => {
      const end = Date.parse(new X509Certificate(tsa.tsaCertPem).validTo);
      const options = { roots: [tsa.rootPem] };
      const late = verifyTimestampToken(good.token, checkpoint, {
        ...options,
        at: new Date(end + 1000),
      });
      expect(late).toMatchObject({ ok: false, reason: expect.stringMatching(/expired/) });
      const inside = verifyTimestampToken(good.token, checkpoint, {
        ...options,
        at: new Date(end - 1000),
      });
      expect(inside.ok).toBe(true);
    });
  });

  describe('a token that does not hold', () => {
    it('over another message fails: wrong imprint (openssl agrees)', async () => {
      const other = ascii('consent.example/log/tenant-1\n43\n');
      const verified = verifyTimestampToken(good.token, other, { roots: [tsa.rootPem] });
      expect(verified).toMatchObject({ ok: false, reason: expect.stringMatching(/imprint/) });
      expect((await opensslVerifyToken(good.token, other, tsa.rootFile)).ok).toBe(false);
    });

    it("with a nonce other than the request's fails: nonce mismatch", () => {
      const verified = verifyTimestampToken(good.token, checkpoint, {
        roots: [tsa.rootPem],
        nonce: good.nonce + 1n,
      });
      expect(verified).toMatchObject({ ok: false, reason: expect.stringMatching(/nonce/) });
    });

    it("checked against a root that is not the TSA's CA fails: untrusted chain (openssl agrees)", async () => {
      const verified = verifyTimestampToken(good.token, checkpoint, { roots: [stranger.pem] });
      expect(verified).toMatchObject({ ok: false, reason: expect.stringMatching(/untrusted/) });
      const none = verifyTimestampToken(good.token, checkpoint, { roots: [] });
      expect(none).toMatchObject({ ok: false, reason: expect.stringMatching(/untrusted/) });
      expect((await opensslVerifyToken(good.token, checkpoint, stranger.file)).ok).toBe(false);
    });

    it('signed with an expired TSA certificate fails: expired certificate (openssl agrees)', async () => {
      const old = await stamp(expiredTsa, checkpoint);
      const verified = verifyTimestampToken(old.token, checkpoint, { roots: [expiredTsa.rootPem] });
      expect(verified).toMatchObject({ ok: false, reason: expect.stringMatching(/expired/) });
      expect((await opensslVerifyToken(old.token, checkpoint, expiredTsa.rootFile)).ok).toBe(false);
    });

    // Each position is inside what the signature covers (the TSTInfo through messageDigest, the
    // signed attributes) or inside the signature or a certificate of the chain.
    const positions: [string, () => number][] = [
      ['the message imprint, in the TSTInfo', () => offsetOf(good.token, sha256(checkpoint)) + 5],
      ['the nonce, in the TSTInfo', () => offsetOf(good.token, nonceBytes(good.nonce))],
      // GeneralizedTime, 15 characters: 0x18 0x0f then YYYYMMDDhhmmssZ; this is a minute digit.
      ['the genTime, in the TSTInfo', () => offsetOf(good.token, hex('180f3230')) + 2 + 11],
      [
        'the eContentType id-ct-TSTInfo',
        () => offsetOf(good.token, hex('060b2a864886f70d0109100104')) + 12,
      ],
      [
        "the ESSCertIDv2 hash of the signer's certificate, in the signed attributes",
        () => offsetOf(good.token, sha256(der(tsa.tsaCertPem))) + 3,
      ],
      ["the TSA certificate's public key", () => offsetOf(good.token, spki(tsa.tsaCertPem)) + 100],
      [
        "the intermediate certificate's signature",
        () => offsetOf(good.token, der(tsa.intermediatePem)) + der(tsa.intermediatePem).length - 3,
      ],
      // The SignerInfo's signature is the token's last field (openssl adds no unsigned attributes).
      ['the signature, in its middle', () => good.token.length - 100],
      ['the signature, its last byte', () => good.token.length - 1],
    ];

    it.each(positions)('with one bit flipped in %s fails, and openssl agrees', async (_, at) => {
      const flipped = flipBit(good.token, at() * 8);
      const verified = verifyTimestampToken(flipped, checkpoint, { roots: [tsa.rootPem] });
      expect(verified.ok).toBe(false);
      expect((await opensslVerifyToken(flipped, checkpoint, tsa.rootFile)).ok).toBe(false);
    });

    // Ours alone: openssl accepts some flips outside what is signed (the versions, a NULL's tag,
    // the case of the signer's issuer), where this verifier reads strictly. Every 11th byte, so
    // that each bit position comes up, at a few milliseconds a check.
    it('with one bit flipped at any of a sweep of positions over the whole token, fails', () => {
      const accepted: number[] = [];
      for (let at = 0; at < good.token.length; at += 11) {
        const flipped = flipBit(good.token, at * 8 + (at % 8));
        if (verifyTimestampToken(flipped, checkpoint, { roots: [tsa.rootPem] }).ok) {
          accepted.push(at);
        }
      }
      expect(accepted).toEqual([]);
    });

    it.each<[string, () => Uint8Array]>([
      ['no bytes', () => new Uint8Array()],
      ['random bytes', () => hex('deadbeef00112233445566778899aabbccddeeff')],
      ['a truncated token', () => good.token.subarray(0, good.token.length - 40)],
      ['the response instead of the token', () => good.response],
      ['the token with a byte after it', () => Uint8Array.from([...good.token, 0])],
    ])('given %s, fails without throwing', (_, bytes) => {
      const verified = verifyTimestampToken(bytes(), checkpoint, { roots: [tsa.rootPem] });
      expect(verified.ok).toBe(false);
    });

    it('given a root that is not a PEM certificate, fails without throwing', () => {
      const verified = verifyTimestampToken(good.token, checkpoint, { roots: ['not a PEM'] });
      expect(verified).toMatchObject({ ok: false, reason: expect.stringMatching(/root/) });
    });
  });

  describe('what openssl issues on its own queries', () => {
    it.each(['sha384', 'sha512'] as const)(
      'a %s imprint verifies, over the message only',
      async (digest) => {
        const query = await opensslQuery(checkpoint, digest);
        expect(query.text).toContain(`Hash Algorithm: ${digest}`);
        const token = readTimestampResponse(await requestTimestamp(tsa.url, query.der));
        if (!token.ok) throw new Error(token.reason);
        const options = { roots: [tsa.rootPem], nonce: opensslNonce(query.text) };
        expect(verifyTimestampToken(token.value, checkpoint, options).ok).toBe(true);
        const other = verifyTimestampToken(token.value, ascii('another checkpoint\n'), options);
        expect(other).toMatchObject({ ok: false, reason: expect.stringMatching(/imprint/) });
      },
    );

    it('a token with an RFC 3161 ESSCertID (SHA-1, ess_cert_id_alg sha1) verifies', async () => {
      const v1 = await stamp(essV1Tsa, checkpoint);
      const signingCertificate = hex('060b2a864886f70d010910020c');
      expect(offsetOf(v1.token, signingCertificate)).toBeGreaterThan(0);
      const sha1 = createHash('sha1').update(der(essV1Tsa.tsaCertPem)).digest();
      const at = offsetOf(v1.token, sha1);
      const options = { roots: [essV1Tsa.rootPem], nonce: v1.nonce };
      expect(verifyTimestampToken(v1.token, checkpoint, options).ok).toBe(true);
      expect((await opensslVerifyToken(v1.token, checkpoint, essV1Tsa.rootFile)).ok).toBe(true);
      const flipped = verifyTimestampToken(flipBit(v1.token, (at + 4) * 8), checkpoint, options);
      expect(flipped).toMatchObject({ ok: false, reason: expect.stringMatching(/ESSCertID v1/) });
    });
  });

  describe('a TSA that does not grant', () => {
    it('answering garbage: readTimestampResponse fails without throwing', async () => {
      badTsa.mode = 'garbage';
      const response = await requestTimestamp(badTsa.url, timestampRequest(checkpoint).der);
      expect(readTimestampResponse(response)).toMatchObject({
        ok: false,
        reason: expect.stringMatching(/not a DER TimeStampResp/),
      });
    });

    it('answering rejection: readTimestampResponse fails with the status and its words', async () => {
      badTsa.mode = 'rejection';
      const response = await requestTimestamp(badTsa.url, timestampRequest(checkpoint).der);
      const read = await opensslReadResponse(response);
      expect(read.text).toContain('Status: Rejected.');
      expect(readTimestampResponse(response)).toMatchObject({
        ok: false,
        reason: expect.stringMatching(/rejection \(Message digest algorithm is not supported\.\)/),
      });
    });

    it('that never answers: the request is cut by its own time-out', async () => {
      badTsa.mode = 'hang';
      const before = badTsa.requests;
      const hanging = fetch(badTsa.url, {
        method: 'POST',
        headers: { 'content-type': 'application/timestamp-query' },
        body: timestampRequest(checkpoint).der,
        signal: AbortSignal.timeout(budget(100)),
      });
      await expect(hanging).rejects.toThrow();
      expect(badTsa.requests).toBe(before + 1);
    });

    it.each([
      ['no bytes', ''],
      ['a TimeStampResp cut short', '3037303502010230'],
      ['a granted status with no token', '30053003020100'],
    ])('given %s, readTimestampResponse fails without throwing', (_, bytes) => {
      expect(readTimestampResponse(hex(bytes)).ok).toBe(false);
    });
  });

  describe('the request', () => {
    it.each(opensslRequests)(
      'for a fixed checkpoint and nonce $nonce is the bytes openssl ts -query writes',
      ({ nonce, der }) => {
        expect(toHex(timestampRequest(checkpoint, nonce).der)).toBe(der);
      },
    );

    it('is byte for byte what openssl writes now, given the nonce openssl chose', async () => {
      const query = await opensslQuery(checkpoint);
      const ours = timestampRequest(checkpoint, opensslNonce(query.text));
      expect(toHex(ours.der)).toBe(toHex(query.der));
    });

    it('reads back in openssl as version 1, SHA-256 of the message, its random nonce, certReq', async () => {
      const ours = timestampRequest(checkpoint);
      const text = await opensslQueryText(ours.der);
      expect(text).toContain('Version: 1');
      expect(text).toContain('Hash Algorithm: sha256');
      expect(text).toContain('Certificate required: yes');
      expect(opensslNonce(text)).toBe(ours.nonce);
      const imprint = [...text.matchAll(/^\s+\d{4} - ([0-9a-f -]+?)\s{2,}/gm)]
        .map((line) => (line[1] ?? '').replace(/[ -]/g, ''))
        .join('');
      expect(imprint).toBe(toHex(sha256(checkpoint)));
      expect(ours.nonce).toBeLessThan(2n ** 64n);
      expect(timestampRequest(checkpoint).nonce).not.toBe(ours.nonce);
    });
  });
});

function spki(pem: string): Uint8Array {
  return new Uint8Array(new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' }));
}

/** The content octets of the nonce's DER INTEGER, as they appear in the TSTInfo. */
function nonceBytes(nonce: bigint): Uint8Array {
  const digits = nonce.toString(16);
  return hex(digits.length % 2 === 0 ? digits : `0${digits}`);
}
