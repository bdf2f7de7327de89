/**
 * The bytes of a partner block's change in the log (`consent-log/partner/v1`), beside the
 * decisions', the cookie choices' and the channel changes' formats. A block is on one of the
 * customer's decisions, for one partner its release lists; like the others, the leaf holds
 * nothing personal in clear: the customer id and the evidence enter only as the same salted
 * SHA-256 commitments as their decisions' (`subjectCommitment`, `evidenceCommitment`). Add
 * formats, never alter one: old receipts verify against it.
 *
 * ```
 * consent-log/partner/v1
 * record <partner block change id>
 * time <ISO 8601 UTC>
 * decision <decision id>
 * partner <partner code>
 * blocked <0|1>
 * subject <base64 commitment>
 * evidence <base64 commitment>
 * ```
 */
export interface PartnerLeafFields {
  recordId: string;
  time: string;
  /** The decision the block is on. */
  decisionId: string;
  /** The partner's code, fixed once made. */
  partnerCode: string;
  blocked: boolean;
  /** base64: `subjectCommitment(salt, customer id)`, as in the customer's decisions' leaves. */
  subject: string;
  /** base64, from `evidenceCommitment`. */
  evidence: string;
}

export const partnerLeafHeader = 'consent-log/partner/v1';

export function partnerLeafText(f: PartnerLeafFields): string {
  return [
    partnerLeafHeader,
    `record ${f.recordId}`,
    `time ${f.time}`,
    `decision ${f.decisionId}`,
    `partner ${f.partnerCode}`,
    `blocked ${f.blocked ? 1 : 0}`,
    `subject ${f.subject}`,
    `evidence ${f.evidence}`,
    '',
  ].join('\n');
}

/** The fields of a partner leaf's text, or undefined when it is not a partner v1 leaf. */
export function parsePartnerLeaf(text: string): PartnerLeafFields | undefined {
  const match =
    /^consent-log\/partner\/v1\nrecord (\S+)\ntime (\S+)\ndecision (\S+)\npartner ([a-z0-9][a-z0-9-]*)\nblocked ([01])\nsubject (\S+)\nevidence (\S+)\n$/.exec(
      text,
    );
  if (!match) return undefined;
  const [, recordId, time, decisionId, partnerCode, blocked, subject, evidence] =
    match as unknown as string[];
  return {
    recordId: recordId as string,
    time: time as string,
    decisionId: decisionId as string,
    partnerCode: partnerCode as string,
    blocked: blocked === '1',
    subject: subject as string,
    evidence: evidence as string,
  };
}
