import { type Checkpoint, openCheckpoint } from './checkpoint.js';
import { type CosignerVerifier, openWitnessedCheckpoint } from './cosignature.js';
import { decodeBase64, utf8 } from './encoding.js';
import { verifyConsistency } from './merkle.js';
import type { NoteVerifier } from './note-keys.js';
import { fail, ok, type Result } from './result.js';
import { verifyTimestampToken } from './timestamp.js';

// What outside parties add to a checkpoint, checked the same way in a receipt and in an evidence
// pack: witnesses' cosignatures (C2SP tlog-cosignature) and an RFC 3161 time-stamp.

/** The witnesses and time-stamping authorities a check trusts, and how many must cosign. */
export interface OutsidePolicy {
  readonly origin?: string;
  readonly witnesses?: readonly CosignerVerifier[];
  readonly quorum?: number;
  readonly tsaRoots?: readonly string[];
}

/**
 * A cosigned checkpoint: the same note text as `proven` (the checkpoint a proof leads to),
 * signed by the log, with at least `quorum` of the given witnesses' cosignatures (every line by a
 * given witness must verify). Absent, it fails only when a quorum is asked for.
 */
export function checkCosigned(
  cosigned: unknown,
  proven: { readonly note: { readonly text: string } },
  verifiers: readonly NoteVerifier[],
  options: OutsidePolicy,
): Result<{ name: string; time: number }[]> {
  const quorum = options.quorum ?? 0;
  if (cosigned === undefined || cosigned === null) {
    return quorum > 0
      ? fail(
          `the receipt has no cosigned checkpoint; ${quorum} witnesses' cosignatures are required`,
        )
      : ok([]);
  }
  if (typeof cosigned !== 'string') return fail("the receipt's cosigned_checkpoint is not text");
  const opened = openWitnessedCheckpoint(cosigned, verifiers, options.witnesses ?? [], quorum, {
    ...(options.origin === undefined ? {} : { origin: options.origin }),
  });
  if (!opened.ok) return fail(`the cosigned checkpoint does not verify: ${opened.reason}`);
  if (opened.value.note.text !== proven.note.text) {
    return fail("the cosigned checkpoint is not the checkpoint the receipt's proof leads to");
  }
  return ok([...opened.value.witnesses]);
}

/** A time-stamp as a receipt carries it: the token, the note stamped, the proof to it. */
export interface StampShown {
  token?: unknown;
  checkpoint?: unknown;
  consistency_proof?: unknown;
}

/**
 * A time-stamp: a checkpoint of the same log, signed by its key, that `checkpoint` is consistent
 * with (so whatever `checkpoint` holds is in it), and, with roots given, an RFC 3161 token over
 * exactly that note that verifies against them. Absent, it fails only when roots are given.
 */
export function checkTimestamp(
  stamp: unknown,
  checkpoint: Checkpoint,
  verifiers: readonly NoteVerifier[],
  options: OutsidePolicy,
): Result<{ genTime: Date; size: number } | undefined> {
  const roots = options.tsaRoots;
  if (stamp === undefined || stamp === null) {
    return roots ? fail('the receipt has no time-stamp; one is required') : ok(undefined);
  }
  const { token, checkpoint: note, consistency_proof: hashes } = stamp as StampShown;
  if (typeof token !== 'string' || typeof note !== 'string' || !Array.isArray(hashes)) {
    return fail("the receipt's timestamp is not {token, checkpoint, consistency_proof}");
  }
  const opened = openCheckpoint(note, verifiers, { origin: checkpoint.origin });
  if (!opened.ok) return fail(`the time-stamped checkpoint does not verify: ${opened.reason}`);
  const later = opened.value.checkpoint;
  const path = hashes.map((h) => (typeof h === 'string' ? decodeBase64(h) : undefined));
  const consistent =
    path.every((h) => h !== undefined) &&
    verifyConsistency(
      checkpoint.size,
      later.size,
      path as Uint8Array[],
      checkpoint.rootHash,
      later.rootHash,
    );
  if (!consistent) {
    return fail("the time-stamped checkpoint is not consistent with the receipt's checkpoint");
  }
  if (!roots) return ok(undefined);
  const der = decodeBase64(token);
  if (der === undefined) return fail("the time-stamp's token is not base64");
  const verified = verifyTimestampToken(der, utf8(note), { roots });
  if (!verified.ok) return fail(`the time-stamp does not verify: ${verified.reason}`);
  return ok({ genTime: verified.value.genTime, size: later.size });
}
