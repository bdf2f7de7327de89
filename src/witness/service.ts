import { createHash } from 'node:crypto';
import {
  type Cosigner,
  emptyRoot,
  openNote,
  parseAddCheckpoint,
  parseCheckpoint,
  parseNote,
  SIZE_CONTENT_TYPE,
  signatureLine,
  verifyConsistency,
} from '../proof/index.js';
import { type KnownLog, verifiersFor } from './logs-file.js';
import { findLog, findLogByHash, insertConflict, saveLog } from './repository.js';
import type { WitnessDb } from './table.js';

/** An answer of the witness protocol: a status, and a text body of the given type. */
export interface WitnessAnswer {
  readonly status: 200 | 400 | 403 | 404 | 409 | 422;
  readonly body: string;
  readonly contentType: string;
  /** The origin the request named, when it could be read (for the log line). */
  readonly origin?: string;
}

const TEXT = 'text/plain; charset=utf-8';
const refuse = (
  status: WitnessAnswer['status'],
  reason: string,
  origin?: string,
): WitnessAnswer => ({
  status,
  body: `${reason}\n`,
  contentType: TEXT,
  ...(origin === undefined ? {} : { origin }),
});

export const originHash = (origin: string) => createHash('sha256').update(origin).digest('hex');

/**
 * C2SP tlog-witness `add-checkpoint`: checks the request in the spec's order, and cosigns the
 * checkpoint only when it is signed by a key trusted for its origin and consistent with the
 * latest checkpoint cosigned for that log. The check of the old size and the move to the new
 * checkpoint are one transaction, so two requests can never roll a log back. A checkpoint that
 * the log signed but that contradicts what was cosigned is kept as evidence of a split view.
 */
export async function addCheckpoint(
  db: WitnessDb,
  cosigner: Cosigner,
  logs: readonly KnownLog[],
  body: string,
  now: () => Date = () => new Date(),
): Promise<WitnessAnswer> {
  const request = parseAddCheckpoint(body);
  if (!request.ok) return refuse(400, request.reason);
  const { oldSize, proof, checkpoint: note } = request.value;
  const parsed = parseNote(note);
  if (!parsed.ok) return refuse(400, `the checkpoint is not a signed note: ${parsed.reason}`);
  const checkpoint = parseCheckpoint(parsed.value.text);
  if (!checkpoint.ok) return refuse(400, `the note is not a checkpoint: ${checkpoint.reason}`);
  const { origin, size, rootHash } = checkpoint.value;
  const verifiers = verifiersFor(logs, origin);
  if (verifiers.length === 0) return refuse(404, 'unknown log origin', origin);
  const opened = openNote(note, verifiers);
  if (!opened.ok) return refuse(403, opened.reason, origin);
  if (oldSize > size) return refuse(400, 'the old size is larger than the checkpoint', origin);
  if (size === 0 && !Buffer.from(rootHash).equals(Buffer.from(emptyRoot()))) {
    return refuse(422, 'a checkpoint of size 0 has the empty tree hash', origin);
  }
  const root = Buffer.from(rootHash).toString('base64');
  return db.transaction().execute(async (trx) => {
    const known = await findLog(trx, origin);
    const knownSize = known ? Number(known.size) : 0;
    if (knownSize !== oldSize) {
      return { status: 409, body: `${knownSize}\n`, contentType: SIZE_CONTENT_TYPE, origin };
    }
    const inconsistent = inconsistency(oldSize, size, proof, known?.root, rootHash);
    if (inconsistent) {
      if (known) {
        await insertConflict(trx, {
          origin,
          received_at: now().toISOString(),
          known_size: knownSize,
          known_checkpoint: known.checkpoint,
          request: body,
          reason: inconsistent,
        });
      }
      return refuse(422, inconsistent, origin);
    }
    const at = now();
    const cosignature = cosigner.cosign(opened.value.text, Math.floor(at.getTime() / 1000));
    const logLines = opened.value.verified.map(signatureLine).join('');
    await saveLog(trx, {
      origin,
      origin_hash: originHash(origin),
      size,
      root,
      checkpoint: `${opened.value.text}\n${logLines}${cosignature}`,
      updated_at: at.toISOString(),
    });
    return { status: 200, body: cosignature, contentType: TEXT, origin };
  });
}

/** Why a checkpoint does not follow from the one cosigned at `oldSize`; undefined when it does. */
function inconsistency(
  oldSize: number,
  size: number,
  proof: readonly Uint8Array[],
  knownRoot: string | undefined,
  root: Uint8Array,
): string | undefined {
  if (oldSize === 0) {
    return proof.length > 0 ? 'a consistency proof from size 0 is empty' : undefined;
  }
  const known = Buffer.from(knownRoot ?? '', 'base64');
  if (oldSize === size && !known.equals(Buffer.from(root))) {
    return 'another root hash at the size already cosigned';
  }
  return verifyConsistency(oldSize, size, proof, known, root)
    ? undefined
    : 'the consistency proof does not verify';
}

/** The latest checkpoint cosigned for the log whose origin hashes to `hash`, if any. */
export async function cosignedCheckpoint(db: WitnessDb, hash: string): Promise<string | undefined> {
  return (await findLogByHash(db, hash))?.checkpoint;
}
