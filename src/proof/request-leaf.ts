import { customerOpening, type LeafFormat, lineLeafFormat } from './leaf-format.js';

/**
 * The bytes of one step of a data-subject request in the log (PDPA sections 30-36): the request
 * received, its requester's identity checked, work begun, the time extended, the request done or
 * refused. Each step is a record of its own, so the log proves when the request came in, what
 * was answered, and when. Nothing personal is in clear: the customer id and the evidence enter
 * as the same commitments as their decisions' (`subjectCommitment`, `evidenceCommitment`); a
 * refusal's or an extension's reason enters as its SHA-256, so the receipt's reason can be
 * checked against the log. Add formats, never alter one: old receipts verify against it.
 *
 * ```
 * consent-log/request/v1
 * record <step id>
 * time <ISO 8601 UTC>
 * request <request id>
 * kind <access|portability|objection|erasure|restriction|rectification|withdrawal>
 * step <received|identity_checked|in_progress|extended|done|refused>
 * due <YYYY-MM-DD, the due date in the tenant's time zone after this step>
 * ground <the PDPA ground of a refusal, or ->
 * reason <hex SHA-256 of the reason's UTF-8, or ->
 * subject <base64 commitment>
 * evidence <base64 commitment>
 * ```
 */
export interface RequestLeafFields {
  recordId: string;
  time: string;
  requestId: string;
  kind: string;
  step: string;
  due: string;
  /** `-` when the step has none. */
  ground: string;
  /** Hex SHA-256 of the reason, `-` when the step has none. */
  reason: string;
  subject: string;
  evidence: string;
}

export const requestLeafFormat: LeafFormat<RequestLeafFields> = lineLeafFormat<RequestLeafFields>({
  header: 'consent-log/request/v1',
  kind: 'request-step',
  noun: 'request step',
  section: 'request_step',
  folder: 'request-steps',
  lines: [
    { label: 'record', field: 'recordId' },
    { label: 'time', field: 'time' },
    { label: 'request', field: 'requestId' },
    { label: 'kind', field: 'kind', pattern: '[a-z]+' },
    { label: 'step', field: 'step', pattern: '[a-z_]+' },
    { label: 'due', field: 'due', pattern: '\\d{4}-\\d{2}-\\d{2}' },
    { label: 'ground', field: 'ground', pattern: '-|[a-z_]+' },
    { label: 'reason', field: 'reason', pattern: '-|[0-9a-f]{64}' },
    { label: 'subject', field: 'subject' },
    { label: 'evidence', field: 'evidence' },
  ],
  record: (leaf) => ({
    step_id: leaf.recordId,
    made_at: leaf.time,
    request_id: leaf.requestId,
    kind: leaf.kind,
    step: leaf.step,
    due_on: leaf.due,
    ...(leaf.ground === '-' ? {} : { ground: leaf.ground }),
    ...(leaf.reason === '-' ? {} : { reason_sha256: leaf.reason }),
  }),
  opening: customerOpening,
});
