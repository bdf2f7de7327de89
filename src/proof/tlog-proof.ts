import { type Checkpoint, openCheckpoint } from './checkpoint.js';
import { decodeBase64, encodeBase64, parseDecimal } from './encoding.js';
import { HASH_SIZE, leafHash, verifyInclusion } from './merkle.js';
import type { OpenedNote } from './note.js';
import type { NoteVerifier } from './note-keys.js';
import { fail, ok, type Result } from './result.js';

// C2SP tlog-proof@v1 (https://c2sp.org/tlog-proof), the offline receipt for one log entry:
//   c2sp.org/tlog-proof@v1
//   extra <base64 leaf bytes>      (optional in the spec; our receipts always carry the leaf)
//   index <decimal>
//   <base64 inclusion proof hash>  (zero or more, leaf's sibling first)
//   <empty line>
//   <signed checkpoint, verbatim>

const HEADER = 'c2sp.org/tlog-proof@v1';

export interface TlogProof {
  readonly index: number;
  readonly inclusionProof: readonly Uint8Array[];
  /** The signed checkpoint note, verbatim. */
  readonly checkpoint: string;
  readonly extra?: Uint8Array;
}

export interface VerifiedTlogProof {
  readonly index: number;
  /** The leaf bytes from the extra field, now proven to be in the log at this index. */
  readonly leaf: Uint8Array;
  /** The hashes that proved it, the leaf's sibling first. */
  readonly inclusionProof: readonly Uint8Array[];
  readonly checkpoint: Checkpoint;
  /** The signed checkpoint note, verbatim as the proof carries it. */
  readonly checkpointText: string;
  readonly note: OpenedNote;
}

/** Writes the proof text. Throws on values the format cannot carry. */
export function formatTlogProof(proof: TlogProof): string {
  const { index, inclusionProof, checkpoint, extra } = proof;
  if (!Number.isSafeInteger(index) || index < 0) throw new RangeError(`invalid index ${index}`);
  if (!inclusionProof.every((hash) => hash.length === HASH_SIZE)) {
    throw new RangeError('inclusion proof hashes have 32 bytes');
  }
  if (!checkpoint.endsWith('\n')) throw new RangeError('a signed checkpoint ends in a newline');
  const lines = [HEADER];
  if (extra !== undefined) lines.push(`extra ${encodeBase64(extra)}`);
  lines.push(`index ${index}`, ...inclusionProof.map(encodeBase64), '');
  return `${lines.join('\n')}\n${checkpoint}`;
}

/** Parses the proof text; the checkpoint is returned unopened. */
export function parseTlogProof(text: string): Result<TlogProof> {
  if (typeof text !== 'string') return fail('a proof is text');
  const lines = lineReader(text);
  if (lines.next() !== HEADER) return fail(`the first line is not ${HEADER}`);
  let line = lines.next();
  let extra: Uint8Array | undefined;
  if (line?.startsWith('extra ')) {
    extra = decodeBase64(line.slice('extra '.length));
    if (extra === undefined) return fail('the extra data is not base64');
    line = lines.next();
  }
  if (!line?.startsWith('index ')) return fail('missing index line');
  const index = parseDecimal(line.slice('index '.length));
  if (index === undefined) return fail('the index is a decimal number without leading zeros');
  const inclusionProof: Uint8Array[] = [];
  for (line = lines.next(); line !== ''; line = lines.next()) {
    if (line === undefined) return fail('no empty line before the checkpoint');
    const hash = decodeBase64(line);
    if (hash === undefined || hash.length !== HASH_SIZE) {
      return fail('an inclusion proof line is a 32-byte hash in base64');
    }
    inclusionProof.push(hash);
  }
  const checkpoint = lines.rest();
  if (checkpoint === '') return fail('missing checkpoint');
  return ok(
    extra === undefined
      ? { index, inclusionProof, checkpoint }
      : { index, inclusionProof, checkpoint, extra },
  );
}

/**
 * Checks a receipt offline: the checkpoint carries a valid signature by one of the trusted log
 * keys, and SHA-256(0x00 || leaf) sits at the index in that checkpoint's tree. The leaf comes
 * from the extra field: the spec warns that extra is not authenticated, and here it needs no
 * trust of its own, because the inclusion check is made on its hash.
 */
export function verifyTlogProof(
  text: string,
  verifiers: readonly NoteVerifier[],
  options: { readonly origin?: string } = {},
): Result<VerifiedTlogProof> {
  const parsed = parseTlogProof(text);
  if (!parsed.ok) return fail(`malformed proof: ${parsed.reason}`);
  const { index, inclusionProof, checkpoint, extra } = parsed.value;
  if (extra === undefined) return fail('the proof carries no leaf in its extra field');
  const opened = openCheckpoint(checkpoint, verifiers, options);
  if (!opened.ok) return fail(`checkpoint rejected: ${opened.reason}`);
  const { size, rootHash } = opened.value.checkpoint;
  if (index >= size) return fail(`index ${index} is beyond the checkpoint's tree size ${size}`);
  if (!verifyInclusion(leafHash(extra), index, size, inclusionProof, rootHash)) {
    return fail('the leaf is not included at this index under the checkpoint root');
  }
  return ok({
    index,
    leaf: extra,
    inclusionProof,
    checkpoint: opened.value.checkpoint,
    checkpointText: checkpoint,
    note: opened.value.note,
  });
}

/** Reads newline-terminated lines; a last line without its newline does not count. */
function lineReader(text: string): { next: () => string | undefined; rest: () => string } {
  let position = 0;
  return {
    next: () => {
      const end = text.indexOf('\n', position);
      if (end < 0) return undefined;
      const line = text.slice(position, end);
      position = end + 1;
      return line;
    },
    rest: () => text.slice(position),
  };
}
