import { createHash } from 'node:crypto';
import { evidenceCommitment, requestLeafFormat, subjectCommitment } from '../proof/index.js';
import type { PersonalFields } from '../subjects/index.js';
import type { RequestStepsTable } from './table.js';

type LoggedStep = Pick<
  RequestStepsTable,
  | 'id'
  | 'made_at'
  | 'request_id'
  | 'kind'
  | 'step'
  | 'due_on'
  | 'ground'
  | 'reason'
  | 'evidence_salt'
  | 'api_key_id'
  | 'user_id'
>;

/** Hex SHA-256 of a reason's UTF-8, as the leaf commits to it. */
export const reasonHash = (reason: string) =>
  createHash('sha256').update(reason, 'utf8').digest('hex');

/** A step's leaf, its commitments given. */
export function stepLeaf(row: LoggedStep, subject: string, evidence: string): string {
  return requestLeafFormat.text({
    recordId: row.id,
    time: row.made_at,
    requestId: row.request_id,
    kind: row.kind,
    step: row.step,
    due: row.due_on,
    ground: row.ground ?? '-',
    reason: row.reason === null ? '-' : reasonHash(row.reason),
    subject,
    evidence,
  });
}

/** A step's evidence commitment: who made it (a key or a user), from where, through what. */
export function stepEvidence(row: LoggedStep, personal: PersonalFields): string {
  return evidenceCommitment(row.evidence_salt, {
    ip: personal.ip,
    userAgent: personal.user_agent,
    apiKeyId: row.api_key_id,
    userId: row.user_id,
    via: personal.via,
  });
}

/** The leaf a step makes from its row, its personal fields opened and the subject's salt. */
export function openedStepLeaf(row: LoggedStep, personal: PersonalFields, salt: string): string {
  return stepLeaf(row, subjectCommitment(salt, personal.customer_id), stepEvidence(row, personal));
}
