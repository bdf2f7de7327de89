import { channelLeafText, evidenceCommitment, subjectCommitment } from '../proof/index.js';

/** What a channel change gives its leaf: its record, with its personal fields opened. */
export interface LoggedChannelChange {
  id: string;
  changed_at: string;
  product_code: string;
  channel: string;
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
 * The leaf a channel change makes (`consent-log/channel/v1`, src/proof/channel-leaf.ts), from its
 * record and the customer's subject salt: what the writer queues, and what the log's audit
 * recomputes from the store to compare with the log.
 */
export function leafOfChannelChange(row: LoggedChannelChange, subjectSalt: string): string {
  return committedChannelLeaf(
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
 * The leaf from its commitments: an erased customer's change is checked by the subject commitment
 * their subject kept, and the evidence commitment as logged.
 */
export function committedChannelLeaf(
  row: Pick<LoggedChannelChange, 'id' | 'changed_at' | 'product_code' | 'channel' | 'blocked'>,
  subject: string,
  evidence: string,
): string {
  return channelLeafText({
    recordId: row.id,
    time: row.changed_at,
    productCode: row.product_code,
    channel: row.channel,
    blocked: Boolean(Number(row.blocked)),
    subject,
    evidence,
  });
}
