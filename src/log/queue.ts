import type { Trx } from '../platform/db.js';
import { evidenceCommitment, leafText, subjectCommitment } from '../proof/leaf.js';
import { insertPendingLeaf, insertPendingLeaves } from './repository.js';

/** What a decision gives its leaf. */
export interface LoggedDecision {
  tenant_id: string;
  id: string;
  customer_id: string;
  template_id: string;
  version: number;
  content_sha256: string;
  decision: 'given' | 'reject' | 'withdraw';
  decided_at: string;
  api_key_id: string;
  ip: string;
  user_agent: string | null;
  evidence_salt: string;
}

/**
 * The leaf a decision makes, from its record and the customer's salt: what the queue appends,
 * and what the audit recomputes from the store to compare with the log.
 */
export function leafOfDecision(row: LoggedDecision, subjectSalt: string): string {
  return committedLeaf(
    row,
    subjectCommitment(subjectSalt, row.customer_id),
    evidenceCommitment(row.evidence_salt, {
      ip: row.ip,
      userAgent: row.user_agent,
      apiKeyId: row.api_key_id,
    }),
  );
}

/** A decision's leaf from its commitments, for a record whose personal values are gone. */
export function committedLeaf(
  row: Pick<
    LoggedDecision,
    'id' | 'decided_at' | 'template_id' | 'version' | 'content_sha256' | 'decision'
  >,
  subject: string,
  evidence: string,
): string {
  return leafText({
    recordId: row.id,
    time: row.decided_at,
    templateId: row.template_id,
    version: Number(row.version),
    contentSha256: row.content_sha256,
    decision: row.decision,
    subject,
    evidence,
  });
}

/** A tombstone's evidence line: an erasure carries no evidence of its own. */
const noEvidence = '-';

/** What an erasure gives its tombstone leaf. */
export interface LoggedErasure {
  id: string;
  template_id: string;
  version: number;
  content_sha256: string;
  erased_at: string;
}

/**
 * The `erased` tombstone of a customer's record on one template: the subject commitment of
 * their earlier leaves, so whoever holds a receipt of theirs can see that the record was erased.
 */
export function leafOfErasure(row: LoggedErasure, commitment: string): string {
  return leafText({
    recordId: row.id,
    time: row.erased_at,
    templateId: row.template_id,
    version: Number(row.version),
    contentSha256: row.content_sha256,
    decision: 'erased',
    subject: commitment,
    evidence: noEvidence,
  });
}

/**
 * Queues a record's leaf in the record's own transaction: a decision that commits is in the
 * queue, so none can be acknowledged and then missing from the log. The tenant's log has the
 * tenant's id.
 */
export const queueLeaf: (
  trx: Trx,
  tenantId: string,
  recordId: string,
  leaf: string,
  queuedAt: string,
) => Promise<void> = insertPendingLeaf;

/** `queueLeaf` for a batch of records, in one statement (PostgreSQL group commit). */
export const queueLeaves: (
  trx: Trx,
  leaves: readonly { log_id: string; record_id: string; leaf: string; queued_at: string }[],
) => Promise<void> = insertPendingLeaves;
