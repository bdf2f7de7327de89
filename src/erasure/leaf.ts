import { leafText } from '../proof/index.js';

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
 * What the erasure queues, and what the log's audit recomputes from the store.
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
