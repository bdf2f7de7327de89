import type { Checkpoint } from './checkpoint.js';
import { evidenceCommitment, type LeafFields, parseLeaf, subjectCommitment } from './leaf.js';
import type { NoteVerifier } from './note-keys.js';
import { fail, ok, type Result } from './result.js';
import { verifyTlogProof } from './tlog-proof.js';

/** A receipt as the service hands it out (`data` of `GET /api/v1/decisions/{id}/receipt`). */
export interface ReceiptDocument {
  decision?: { decision_id?: string; decision?: string; decided_at?: string; version?: number };
  tlog_proof: string;
  /** Absent or null in a receipt issued after the customer was erased. */
  opening?: null | {
    customer_id: string;
    subject_salt: string;
    evidence_salt: string;
    ip: string;
    user_agent: string | null;
    api_key_id: string;
  };
}

export interface VerifiedReceipt {
  leafIndex: number;
  checkpoint: Checkpoint;
  leaf: LeafFields;
  /** True when the receipt carried an opening and it matched the leaf's commitments. */
  opened: boolean;
}

/**
 * Checks a receipt with nothing but the log's verifier key: the signed checkpoint, the leaf's
 * inclusion under it, the leaf's format, and that the decision and the opening (customer id,
 * evidence and their salts), when the receipt carries them, are exactly what the leaf commits to.
 * Accepts the receipt object, the API's whole answer (`{data: receipt}`), or tlog-proof text.
 */
export function verifyReceipt(
  input: string | ReceiptDocument | { data: ReceiptDocument },
  verifiers: readonly NoteVerifier[],
  options: { readonly origin?: string } = {},
): Result<VerifiedReceipt> {
  const receipt: ReceiptDocument =
    typeof input === 'string' ? { tlog_proof: input } : 'data' in input ? input.data : input;
  if (typeof receipt?.tlog_proof !== 'string') return fail('the receipt has no tlog_proof');
  const proof = verifyTlogProof(receipt.tlog_proof, verifiers, options);
  if (!proof.ok) return proof;
  const leaf = parseLeaf(Buffer.from(proof.value.leaf).toString('utf8'));
  if (!leaf) return fail('the logged leaf is not a consent-log/leaf/v1 record');
  const decision = receipt.decision;
  if (decision) {
    const mismatch = (
      [
        ['decision_id', decision.decision_id, leaf.recordId],
        ['decision', decision.decision, leaf.decision],
        ['decided_at', decision.decided_at, leaf.time],
        ['version', decision.version, leaf.version],
      ] as const
    ).find(([, stated, logged]) => stated !== undefined && stated !== logged);
    if (mismatch) return fail(`the receipt's ${mismatch[0]} is not the one in the log`);
  }
  const opening = receipt.opening;
  if (opening) {
    if (subjectCommitment(opening.subject_salt, opening.customer_id) !== leaf.subject) {
      return fail("the customer id and salt do not open the leaf's subject commitment");
    }
    const evidence = evidenceCommitment(opening.evidence_salt, {
      ip: opening.ip,
      userAgent: opening.user_agent,
      apiKeyId: opening.api_key_id,
    });
    if (evidence !== leaf.evidence) {
      return fail("the evidence and salt do not open the leaf's evidence commitment");
    }
  }
  return ok({
    leafIndex: proof.value.index,
    checkpoint: proof.value.checkpoint,
    leaf,
    opened: opening !== undefined && opening !== null,
  });
}
