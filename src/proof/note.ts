import { bytesEqual, decodeBase64, encodeBase64, isNoteSafeText, utf8 } from './encoding.js';
import { hex8, isValidKeyName, type NoteSigner, type NoteVerifier } from './note-keys.js';
import { fail, ok, type Result } from './result.js';

// C2SP signed-note (https://c2sp.org/signed-note): a text ending in a newline, a blank line, then
// one line per signature: em dash U+2014, space, key name, space, base64(key id || signature).
// The text is everything before the last blank line, final newline included.

const SIGNATURE_PREFIX = '\u2014 ';
// The spec asks verifiers to accept at least 16; 100 is the limit of golang.org/x/mod/sumdb/note.
const MAX_SIGNATURES = 100;

export interface NoteSignature {
  readonly name: string;
  readonly keyId: number;
  /** The signature bytes, without the four key id bytes. */
  readonly signature: Uint8Array;
}

export interface ParsedNote {
  readonly text: string;
  readonly signatures: readonly NoteSignature[];
}

export interface OpenedNote {
  readonly text: string;
  /** Signatures by the given keys, each verified; one entry per key. */
  readonly verified: readonly NoteSignature[];
  /** Signatures by keys not given, kept (not checked) so a cosigned note can be passed on. */
  readonly unverified: readonly NoteSignature[];
}

/** Signs a note text. Throws on text a note cannot carry: that is a bug in the caller. */
export function signNote(text: string, signers: readonly NoteSigner[]): string {
  if (!text.endsWith('\n') || !isNoteSafeText(text)) {
    throw new RangeError('a note text is text without control characters ending in a newline');
  }
  if (signers.length === 0) throw new RangeError('a signed note needs a signer');
  const message = utf8(text);
  const lines = signers.map((signer) => {
    if (!isValidKeyName(signer.name)) throw new RangeError(`invalid key name ${signer.name}`);
    const line = Uint8Array.of(...keyIdBytes(signer.keyId), ...signer.sign(message));
    return `${SIGNATURE_PREFIX}${signer.name} ${encodeBase64(line)}\n`;
  });
  return `${text}\n${lines.join('')}`;
}

/** Splits a signed note into text and signature lines, checking only the syntax. */
export function parseNote(message: string | Uint8Array): Result<ParsedNote> {
  const decoded = typeof message === 'string' ? message : decodeUtf8(message);
  if (decoded === undefined || !isNoteSafeText(decoded)) {
    return fail('a note is UTF-8 text with no control character other than newline');
  }
  const split = decoded.lastIndexOf('\n\n');
  if (split < 0) return fail('no blank line before the signatures');
  const block = decoded.slice(split + 2);
  if (block === '' || !block.endsWith('\n')) return fail('no signature lines ending in newline');
  const lines = block.slice(0, -1).split('\n');
  if (lines.length > MAX_SIGNATURES) return fail(`more than ${MAX_SIGNATURES} signatures`);
  const signatures: NoteSignature[] = [];
  for (const line of lines) {
    const signature = parseSignatureLine(line);
    if (signature === undefined) return fail(`malformed signature line ${JSON.stringify(line)}`);
    signatures.push(signature);
  }
  return ok({ text: decoded.slice(0, split + 1), signatures });
}

/**
 * Parses a signed note and checks it against trusted keys. Signatures by other keys are set
 * aside, even when they share the name or the key id (not both) with a trusted key. Any failing
 * signature by a trusted key rejects the note, and at least one must verify.
 */
export function openNote(
  message: string | Uint8Array,
  verifiers: readonly NoteVerifier[],
): Result<OpenedNote> {
  const parsed = parseNote(message);
  if (!parsed.ok) return parsed;
  const { text, signatures } = parsed.value;
  const signed = utf8(text);
  const verified: NoteSignature[] = [];
  const unverified: NoteSignature[] = [];
  const seenKeys = new Set<string>();
  const seenLines = new Set<string>();
  for (const signature of signatures) {
    const key = `${signature.name}+${hex8(signature.keyId)}`;
    const matches = verifiers.filter(
      (v) => v.name === signature.name && v.keyId === signature.keyId,
    );
    const [verifier] = matches;
    if (verifier === undefined) {
      const line = `${key} ${encodeBase64(signature.signature)}`;
      if (!seenLines.has(line)) unverified.push(signature);
      seenLines.add(line);
      continue;
    }
    // Two different public keys under one name and id means the trust list itself is wrong.
    if (matches.some((v) => !bytesEqual(v.publicKey, verifier.publicKey))) {
      return fail(`ambiguous verifier key ${key}`);
    }
    if (!verifier.verify(signed, signature.signature)) {
      return fail(`invalid signature for key ${key}`);
    }
    if (!seenKeys.has(key)) verified.push(signature);
    seenKeys.add(key);
  }
  if (verified.length === 0) return fail('no signature from a trusted key');
  return ok({ text, verified, unverified });
}

/** A signature as its note line, newline included: what `parseNote` read it from. */
export function signatureLine({ name, keyId, signature }: NoteSignature): string {
  return `${SIGNATURE_PREFIX}${name} ${encodeBase64(Uint8Array.of(...keyIdBytes(keyId), ...signature))}\n`;
}

function parseSignatureLine(line: string): NoteSignature | undefined {
  if (!line.startsWith(SIGNATURE_PREFIX)) return undefined;
  const rest = line.slice(SIGNATURE_PREFIX.length);
  const space = rest.indexOf(' ');
  if (space < 0) return undefined;
  const name = rest.slice(0, space);
  const bytes = decodeBase64(rest.slice(space + 1));
  // Four key id bytes and a signature of at least one byte.
  if (!isValidKeyName(name) || bytes === undefined || bytes.length < 5) return undefined;
  const keyId = new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0);
  return { name, keyId, signature: bytes.subarray(4) };
}

function keyIdBytes(keyId: number): Uint8Array {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setUint32(0, keyId);
  return bytes;
}

function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    // fatal: invalid UTF-8 is an error, not U+FFFD; ignoreBOM: a leading BOM stays in the text.
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
