import { createHash, randomBytes } from 'node:crypto';

// What 0003 computed when it was written: the v1 leaf of a decision and its salts. Kept here
// rather than imported, so a later change to the live leaf code cannot change what this
// migration wrote into a store that has not run it yet.

/** A decision as 0003 read it, with the evidence salt it gave it. */
export interface DecisionRow0003 {
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

/** A new random salt (16 bytes, base64). */
export function newSalt0003(): string {
  return randomBytes(16).toString('base64');
}

/** SHA-256("subject/v1\n" || salt || customer id), base64. */
export function subjectCommitment0003(salt: string, customerId: string): string {
  return createHash('sha256')
    .update('subject/v1\n')
    .update(Buffer.from(salt, 'base64'))
    .update(customerId, 'utf8')
    .digest('base64');
}

/** SHA-256("evidence/v1\n" || salt || canonical JSON {api_key_id, ip, ua}), base64. */
function evidenceCommitment0003(salt: string, row: DecisionRow0003): string {
  const canonical = JSON.stringify({ api_key_id: row.api_key_id, ip: row.ip, ua: row.user_agent });
  return createHash('sha256')
    .update('evidence/v1\n')
    .update(Buffer.from(salt, 'base64'))
    .update(canonical, 'utf8')
    .digest('base64');
}

/** The `consent-log/leaf/v1` text of a decision, given the customer's salt. */
export function leafOfDecision0003(row: DecisionRow0003, subjectSalt: string): string {
  return [
    'consent-log/leaf/v1',
    `record ${row.id}`,
    `time ${row.decided_at}`,
    `template ${row.template_id} ${Number(row.version)} sha256:${row.content_sha256}`,
    `decision ${row.decision}`,
    `subject ${subjectCommitment0003(subjectSalt, row.customer_id)}`,
    `evidence ${evidenceCommitment0003(row.evidence_salt, row)}`,
    '',
  ].join('\n');
}
