import { evidenceCommitment, leafText, subjectCommitment } from '../proof/index.js';

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
  /** Opened from `personal` with the address: the channel it came through, when not the API. */
  via?: string | null;
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
      via: row.via,
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
