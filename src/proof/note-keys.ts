import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
  verify,
} from 'node:crypto';
import { decodeBase64, encodeBase64, isNoteSafeText, sha256, utf8 } from './encoding.js';
import { fail, ok, type Result } from './result.js';

// Ed25519 keys for C2SP signed notes in the text forms of golang.org/x/mod/sumdb/note:
//   verifier key  <name>+<hex8 key id>+base64(0x01 || 32-byte public key)
//   signer key    PRIVATE+KEY+<name>+<hex8 key id>+base64(0x01 || 32-byte seed)
// The PRIVATE+KEY prefix keeps a signer key from being pasted where a verifier key is expected.

const ED25519 = 0x01;
const SIGNER_PREFIX = 'PRIVATE+KEY+';
// DER headers of an Ed25519 PKCS#8 private key and SPKI public key; the raw 32 bytes follow.
const PKCS8_ED25519 = Uint8Array.from([
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
]);
const SPKI_ED25519 = Uint8Array.from([
  0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00,
]);

export interface NoteVerifier {
  readonly name: string;
  /** uint32 key id, the first four bytes of SHA-256(name || 0x0A || 0x01 || public key). */
  readonly keyId: number;
  readonly publicKey: Uint8Array;
  /** The verifier key text, as published for anyone checking receipts. */
  readonly verifierKey: string;
  readonly verify: (message: Uint8Array, signature: Uint8Array) => boolean;
}

export interface NoteSigner {
  readonly name: string;
  readonly keyId: number;
  readonly verifierKey: string;
  readonly sign: (message: Uint8Array) => Uint8Array;
}

export interface NoteKeyPair {
  /** Secret: whoever holds it can sign checkpoints in the log's name. */
  readonly signerKey: string;
  readonly verifierKey: string;
}

/** A new Ed25519 key pair as note key texts. Throws on a name a note cannot carry. */
export function generateNoteKeys(name: string): NoteKeyPair {
  return generateKeyTexts(name, ED25519);
}

/** A new Ed25519 key pair of signature type `algorithm`, as key texts. */
export function generateKeyTexts(name: string, algorithm: number): NoteKeyPair {
  if (!isValidKeyName(name)) throw new RangeError(`invalid note key name ${JSON.stringify(name)}`);
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const seed = privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(PKCS8_ED25519.length);
  const pub = rawPublicKey(publicKey);
  const id = hex8(noteKeyId(name, pub, algorithm));
  return {
    signerKey: `${SIGNER_PREFIX}${name}+${id}+${encodeBase64(Uint8Array.of(algorithm, ...seed))}`,
    verifierKey: formatVerifierKey(name, pub, algorithm),
  };
}

/** Key names must be non-empty with no Unicode space and no '+' (the key text separator). */
export function isValidKeyName(name: string): boolean {
  return name.length > 0 && isNoteSafeText(name) && !/[\p{White_Space}\p{Cc}+]/u.test(name);
}

/** The key id of a key of signature type `algorithm` (0x01 a note's Ed25519, 0x04 a cosigner's). */
export function noteKeyId(name: string, publicKey: Uint8Array, algorithm = ED25519): number {
  const digest = sha256(utf8(name), Uint8Array.of(0x0a, algorithm), publicKey);
  return new DataView(digest.buffer, digest.byteOffset, 4).getUint32(0);
}

export function formatVerifierKey(
  name: string,
  publicKey: Uint8Array,
  algorithm = ED25519,
): string {
  if (!isValidKeyName(name)) throw new RangeError(`invalid note key name ${JSON.stringify(name)}`);
  if (publicKey.length !== 32) throw new RangeError('an Ed25519 public key has 32 bytes');
  const id = hex8(noteKeyId(name, publicKey, algorithm));
  return `${name}+${id}+${encodeBase64(Uint8Array.of(algorithm, ...publicKey))}`;
}

export function parseVerifierKey(text: string): Result<NoteVerifier> {
  const key = readVerifierKey(text, ED25519);
  if (!key.ok) return key;
  const { name, keyId, publicKey, keyObject } = key.value;
  return ok({
    name,
    keyId,
    publicKey,
    verifierKey: text,
    verify: (message, signature) =>
      signature.length === 64 && verify(null, message, keyObject, signature),
  });
}

export function parseSignerKey(text: string): Result<NoteSigner> {
  const key = readSignerKey(text, ED25519);
  if (!key.ok) return key;
  const { name, keyId, verifierKey, privateKey } = key.value;
  return ok({
    name,
    keyId,
    verifierKey,
    sign: (message) => Uint8Array.from(sign(null, message, privateKey)),
  });
}

/** An Ed25519 verifier key text of signature type `algorithm`, read and checked. */
export function readVerifierKey(
  text: string,
  algorithm: number,
): Result<{ name: string; keyId: number; publicKey: Uint8Array; keyObject: KeyObject }> {
  const parts = splitKeyText(text, algorithm);
  if (!parts.ok) return parts;
  const { name, keyId, key } = parts.value;
  if (key.length !== 32) return fail('an Ed25519 verifier key has 32 bytes');
  if (noteKeyId(name, key, algorithm) !== keyId) {
    return fail('key id does not match the name and key');
  }
  return ok({ name, keyId, publicKey: key, keyObject: publicKeyObject(key) });
}

/** An Ed25519 signer key text (`PRIVATE+KEY+…`) of signature type `algorithm`, read and checked. */
export function readSignerKey(
  text: string,
  algorithm: number,
): Result<{ name: string; keyId: number; verifierKey: string; privateKey: KeyObject }> {
  if (!text.startsWith(SIGNER_PREFIX)) return fail('a signer key starts with PRIVATE+KEY+');
  const parts = splitKeyText(text.slice(SIGNER_PREFIX.length), algorithm);
  if (!parts.ok) return parts;
  const { name, keyId, key } = parts.value;
  if (key.length !== 32) return fail('an Ed25519 signer key has a 32-byte seed');
  const privateKey = createPrivateKey({
    key: Buffer.from(Uint8Array.of(...PKCS8_ED25519, ...key)),
    format: 'der',
    type: 'pkcs8',
  });
  const pub = rawPublicKey(createPublicKey(privateKey));
  // The id names the public key, which only exists once derived from the seed.
  if (noteKeyId(name, pub, algorithm) !== keyId) {
    return fail('key id does not match the name and key');
  }
  return ok({ name, keyId, verifierKey: formatVerifierKey(name, pub, algorithm), privateKey });
}

export function hex8(keyId: number): string {
  return keyId.toString(16).padStart(8, '0');
}

interface KeyTextParts {
  name: string;
  keyId: number;
  key: Uint8Array;
}

/** <name>+<hex8>+<base64>; the name has no '+', the base64 part may. */
function splitKeyText(text: string, algorithm: number): Result<KeyTextParts> {
  const first = text.indexOf('+');
  const second = text.indexOf('+', first + 1);
  if (first < 0 || second < 0) return fail('a note key has the form name+keyid+key');
  const name = text.slice(0, first);
  const id = text.slice(first + 1, second);
  if (!isValidKeyName(name)) return fail('invalid key name');
  // Either case, as golang.org/x/mod/sumdb/note reads it; it writes lower case.
  if (!/^[0-9a-fA-F]{8}$/.test(id)) return fail('the key id is 8 hexadecimal digits');
  const bytes = decodeBase64(text.slice(second + 1));
  if (bytes === undefined || bytes.length === 0) return fail('the key is not base64');
  if (bytes[0] !== algorithm) {
    return fail(
      algorithm === ED25519 && bytes[0] === 0x04
        ? 'a cosigner (witness) key, not a note signing key'
        : 'unknown key algorithm',
    );
  }
  return ok({ name, keyId: Number.parseInt(id, 16), key: bytes.subarray(1) });
}

function rawPublicKey(key: KeyObject): Uint8Array {
  return Uint8Array.from(key.export({ format: 'der', type: 'spki' }).subarray(SPKI_ED25519.length));
}

function publicKeyObject(raw: Uint8Array): KeyObject {
  return createPublicKey({
    key: Buffer.from(Uint8Array.of(...SPKI_ED25519, ...raw)),
    format: 'der',
    type: 'spki',
  });
}
