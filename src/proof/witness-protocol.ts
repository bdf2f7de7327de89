import { decodeBase64, encodeBase64, parseDecimal } from './encoding.js';
import { HASH_SIZE } from './merkle.js';
import { fail, ok, type Result } from './result.js';

// The body of C2SP tlog-witness's `POST <prefix>/add-checkpoint` (https://c2sp.org/tlog-witness):
//   old <size>\n
//   <base64 consistency proof hash>\n   (0 to 63 lines)
//   \n
//   <the signed checkpoint note>
// and of its `409 Conflict` answer (`text/x.tlog.size`): the witness's size and a newline.

/** The most consistency proof lines a client may send. */
export const MAX_PROOF_LINES = 63;
export const SIZE_CONTENT_TYPE = 'text/x.tlog.size';

export interface AddCheckpoint {
  readonly oldSize: number;
  readonly proof: readonly Uint8Array[];
  /** The signed checkpoint note, every signature line included. */
  readonly checkpoint: string;
}

export function formatAddCheckpoint({ oldSize, proof, checkpoint }: AddCheckpoint): string {
  if (!Number.isSafeInteger(oldSize) || oldSize < 0) throw new RangeError('invalid old size');
  if (proof.length > MAX_PROOF_LINES) throw new RangeError('too many proof lines');
  const lines = proof.map((hash) => `${encodeBase64(hash)}\n`).join('');
  return `old ${oldSize}\n${lines}\n${checkpoint}`;
}

/** Reads a request body strictly; the checkpoint itself is left for the note's own checks. */
export function parseAddCheckpoint(body: string): Result<AddCheckpoint> {
  const blank = body.indexOf('\n\n');
  if (blank < 0) return fail('no empty line before the checkpoint');
  const [sizeLine, ...proofLines] = body.slice(0, blank).split('\n');
  const match = /^old (\d+)$/.exec(sizeLine ?? '');
  const oldSize = match ? parseDecimal(match[1] as string) : undefined;
  if (oldSize === undefined) return fail('the first line is "old <size>" in canonical decimal');
  if (proofLines.length > MAX_PROOF_LINES) {
    return fail(`more than ${MAX_PROOF_LINES} consistency proof lines`);
  }
  const proof: Uint8Array[] = [];
  for (const line of proofLines) {
    const hash = decodeBase64(line);
    if (hash === undefined || hash.length !== HASH_SIZE) {
      return fail('each consistency proof line is one base64 hash');
    }
    proof.push(hash);
  }
  return ok({ oldSize, proof, checkpoint: body.slice(blank + 2) });
}

/** The size a `409 Conflict` names: a decimal number and a newline. */
export function parseKnownSize(body: string): Result<number> {
  const size = body.endsWith('\n') ? parseDecimal(body.slice(0, -1)) : undefined;
  return size === undefined ? fail('a size is a decimal number and a newline') : ok(size);
}
