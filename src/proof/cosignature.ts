import { sign, verify } from 'node:crypto';
import { type OpenedCheckpoint, openCheckpoint } from './checkpoint.js';
import { encodeBase64, utf8 } from './encoding.js';
import type { NoteSignature } from './note.js';
import {
  generateKeyTexts,
  type NoteKeyPair,
  type NoteVerifier,
  readSignerKey,
  readVerifierKey,
} from './note-keys.js';
import { fail, ok, type Result } from './result.js';

// C2SP tlog-cosignature (https://c2sp.org/tlog-cosignature), the Ed25519 `cosignature/v1` type:
// a witness's note signature on a checkpoint, whose key id is computed with signature type 0x04
// and whose signature is an 8-byte big-endian POSIX time followed by the Ed25519 signature of
//   cosignature/v1\ntime <time>\n<the checkpoint's note text>
// A cosignature states that, at that time, this was the largest consistent tree the witness had
// seen of the log.

const COSIGNATURE_V1 = 0x04;
const HEADER = 'cosignature/v1\n';

/** A witness's key, to check its cosignatures; a `NoteVerifier`, so `openNote` takes it. */
export interface CosignerVerifier extends NoteVerifier {
  readonly kind: 'cosigner';
}

export interface Cosigner {
  readonly name: string;
  readonly keyId: number;
  readonly verifierKey: string;
  /** The signature line (`— name base64(id || time || signature)\n`) on a checkpoint text. */
  readonly cosign: (checkpointText: string, time: number) => string;
}

/** A new witness key pair, as key texts (the signer key is `PRIVATE+KEY+…`, type 0x04). */
export function generateCosignerKeys(name: string): NoteKeyPair {
  return generateKeyTexts(name, COSIGNATURE_V1);
}

/** The exact bytes a `cosignature/v1` signs. */
export function cosignedMessage(checkpointText: string, time: number): Uint8Array {
  return utf8(`${HEADER}time ${time}\n${checkpointText}`);
}

export function parseCosignerKey(text: string): Result<Cosigner> {
  const key = readSignerKey(text, COSIGNATURE_V1);
  if (!key.ok) return key;
  const { name, keyId, verifierKey, privateKey } = key.value;
  return ok({
    name,
    keyId,
    verifierKey,
    cosign: (checkpointText, time) => {
      if (!Number.isSafeInteger(time) || time <= 0) throw new RangeError(`invalid time ${time}`);
      const signature = sign(null, cosignedMessage(checkpointText, time), privateKey);
      const bytes = new Uint8Array(4 + 8 + 64);
      const view = new DataView(bytes.buffer);
      view.setUint32(0, keyId);
      view.setBigUint64(4, BigInt(time));
      bytes.set(signature, 12);
      return `\u2014 ${name} ${encodeBase64(bytes)}\n`;
    },
  });
}

export function parseCosignerVerifierKey(text: string): Result<CosignerVerifier> {
  const key = readVerifierKey(text, COSIGNATURE_V1);
  if (!key.ok) return key;
  const { name, keyId, publicKey, keyObject } = key.value;
  return ok({
    kind: 'cosigner',
    name,
    keyId,
    publicKey,
    verifierKey: text,
    // `message` is the note text; the time it was cosigned at is part of the signature bytes.
    verify: (message, signature) => {
      const time = cosignatureTime(signature);
      if (time === undefined) return false;
      const signed = Uint8Array.of(...utf8(HEADER), ...utf8(`time ${time}\n`), ...message);
      return verify(null, signed, keyObject, signature.subarray(8));
    },
  });
}

/** The POSIX time a cosignature's bytes (without the key id) carry; undefined when malformed. */
export function cosignatureTime(signature: Uint8Array | NoteSignature): number | undefined {
  const bytes = signature instanceof Uint8Array ? signature : signature.signature;
  if (bytes.length !== 8 + 64) return undefined;
  const time = new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0);
  // The spec bounds it by 2^63 - 1; a time a JavaScript number cannot hold is no date anyway.
  return time > 0n && time <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(time) : undefined;
}

export interface WitnessedCheckpoint extends OpenedCheckpoint {
  /** The witnesses whose cosignature verified, each with the time it states. */
  readonly witnesses: readonly { readonly name: string; readonly time: number }[];
}

/**
 * A checkpoint signed by the log and cosigned by at least `quorum` of the given witnesses. Every
 * signature line by a given key must verify (a failing one rejects the note, as signed-note
 * asks); lines by keys not given are ignored.
 */
export function openWitnessedCheckpoint(
  signedNote: string,
  logVerifiers: readonly NoteVerifier[],
  witnesses: readonly CosignerVerifier[],
  quorum: number,
  options: { readonly origin?: string } = {},
): Result<WitnessedCheckpoint> {
  const opened = openCheckpoint(signedNote, [...logVerifiers, ...witnesses], options);
  if (!opened.ok) return opened;
  const isWitness = (s: NoteSignature) =>
    witnesses.some((w) => w.name === s.name && w.keyId === s.keyId);
  const byLog = opened.value.note.verified.filter((s) => !isWitness(s));
  if (byLog.length === 0) return fail('the checkpoint is not signed by the log');
  const cosigned = opened.value.note.verified.filter(isWitness).map((s) => ({
    name: s.name,
    time: cosignatureTime(s) as number,
  }));
  if (cosigned.length < quorum) {
    return fail(
      `${cosigned.length} of the given witnesses cosigned the checkpoint; the quorum is ${quorum}`,
    );
  }
  return ok({ ...opened.value, witnesses: cosigned });
}
