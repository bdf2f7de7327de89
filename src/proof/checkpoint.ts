import { decodeBase64, encodeBase64, isNoteSafeText, parseDecimal } from './encoding.js';
import { HASH_SIZE } from './merkle.js';
import { type OpenedNote, openNote, signNote } from './note.js';
import type { NoteSigner, NoteVerifier } from './note-keys.js';
import { fail, ok, type Result } from './result.js';

// C2SP tlog-checkpoint (https://c2sp.org/tlog-checkpoint): a signed note whose text is the origin
// line, the tree size in decimal, the base64 root hash, then optional non-empty extension lines.

export interface Checkpoint {
  /** Identifies the log; by convention also the name of the log's signing key. */
  readonly origin: string;
  readonly size: number;
  readonly rootHash: Uint8Array;
  /** Opaque and not auditable by monitors, so the spec advises against them. */
  readonly extensions: readonly string[];
}

export interface OpenedCheckpoint {
  readonly checkpoint: Checkpoint;
  readonly note: OpenedNote;
}

/** The note text of a checkpoint. Throws on values the format cannot carry. */
export function formatCheckpoint(checkpoint: Checkpoint): string {
  const { origin, size, rootHash, extensions } = checkpoint;
  if (!isLine(origin)) throw new RangeError('the origin is one non-empty line');
  if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`invalid tree size ${size}`);
  if (rootHash.length !== HASH_SIZE) throw new RangeError('the root hash has 32 bytes');
  if (!extensions.every(isLine)) throw new RangeError('extension lines are non-empty lines');
  return [origin, String(size), encodeBase64(rootHash), ...extensions, ''].join('\n');
}

/** Parses checkpoint note text strictly: canonical decimal size, exactly 32 root hash bytes. */
export function parseCheckpoint(text: string): Result<Checkpoint> {
  if (!text.endsWith('\n') || !isNoteSafeText(text)) {
    return fail('checkpoint text is text ending in a newline');
  }
  const [origin, sizeLine, rootLine, ...extensions] = text.slice(0, -1).split('\n');
  if (origin === undefined || sizeLine === undefined || rootLine === undefined) {
    return fail('a checkpoint has at least three lines');
  }
  if (origin === '') return fail('empty origin');
  const size = parseDecimal(sizeLine);
  if (size === undefined) return fail('the size is a decimal number without leading zeros');
  const rootHash = decodeBase64(rootLine);
  if (rootHash === undefined || rootHash.length !== HASH_SIZE) {
    return fail('the root hash is 32 bytes in base64');
  }
  if (extensions.includes('')) return fail('empty extension line');
  return ok({ origin, size, rootHash, extensions });
}

export function signCheckpoint(checkpoint: Checkpoint, signers: readonly NoteSigner[]): string {
  return signNote(formatCheckpoint(checkpoint), signers);
}

/**
 * Verifies a signed checkpoint against trusted log keys, then parses it. With an expected
 * origin, a checkpoint of any other log is rejected even when a trusted key signed it.
 */
export function openCheckpoint(
  signedNote: string | Uint8Array,
  verifiers: readonly NoteVerifier[],
  options: { readonly origin?: string } = {},
): Result<OpenedCheckpoint> {
  const note = openNote(signedNote, verifiers);
  if (!note.ok) return note;
  const checkpoint = parseCheckpoint(note.value.text);
  if (!checkpoint.ok) return checkpoint;
  if (options.origin !== undefined && checkpoint.value.origin !== options.origin) {
    return fail(
      `checkpoint of origin ${JSON.stringify(checkpoint.value.origin)}, not the expected one`,
    );
  }
  return ok({ checkpoint: checkpoint.value, note: note.value });
}

function isLine(value: string): boolean {
  return value !== '' && !value.includes('\n') && isNoteSafeText(value);
}
