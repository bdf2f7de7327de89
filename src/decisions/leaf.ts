import {
  type ExplicitAct,
  evidenceCommitment,
  leafText,
  subjectCommitment,
} from '../proof/index.js';
import type { PersonalFields } from '../subjects/index.js';
import type { DecisionRecordRow } from './table.js';

/**
 * What a decision gives its leaf: its record's fields, with its personal fields opened (`via`,
 * the channel it came through when not the API, among them) and its evidence salt.
 */
export type LoggedDecision = Pick<
  DecisionRecordRow,
  'id' | 'template_id' | 'version' | 'content_sha256' | 'decided_at' | 'api_key_id'
> & { decision: 'given' | 'reject' | 'withdraw'; evidence_salt: string } & PersonalFields;

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
      explicit: row.explicit as ExplicitAct | undefined,
      actedBy: row.acted_by,
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
