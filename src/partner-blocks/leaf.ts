import { evidenceCommitment, partnerLeafText, subjectCommitment } from '../proof/index.js';

/** What a partner block's change gives its leaf: its record, with its personal fields opened. */
export interface LoggedPartnerBlock {
  id: string;
  changed_at: string;
  decision_id: string;
  partner_code: string;
  blocked: number | boolean;
  /** Null for a back-office user's change, then named by `user_id`. */
  api_key_id: string | null;
  user_id?: string | null;
  evidence_salt: string;
  /** Opened from `personal`. */
  customer_id: string;
  ip: string;
  user_agent: string | null;
  /** The channel it came through, when not the API or the back-office (`preference-centre`). */
  via?: string | null;
}

/**
 * The leaf a partner block's change makes (`consent-log/partner/v1`, src/proof/partner-leaf.ts),
 * from its record and the customer's subject salt: what the writer queues, and what the log's
 * audit recomputes from the store to compare with the log.
 */
export function leafOfPartnerBlock(row: LoggedPartnerBlock, subjectSalt: string): string {
  return committedPartnerLeaf(
    row,
    subjectCommitment(subjectSalt, row.customer_id),
    evidenceCommitment(row.evidence_salt, {
      ip: row.ip,
      userAgent: row.user_agent,
      apiKeyId: row.api_key_id,
      userId: row.user_id,
      via: row.via,
    }),
  );
}

/**
 * The leaf from its commitments: an erased customer's change is checked by the subject
 * commitment their subject kept, and the evidence commitment as logged.
 */
export function committedPartnerLeaf(
  row: Pick<LoggedPartnerBlock, 'id' | 'changed_at' | 'decision_id' | 'partner_code' | 'blocked'>,
  subject: string,
  evidence: string,
): string {
  return partnerLeafText({
    recordId: row.id,
    time: row.changed_at,
    decisionId: row.decision_id,
    partnerCode: row.partner_code,
    blocked: Boolean(Number(row.blocked)),
    subject,
    evidence,
  });
}
