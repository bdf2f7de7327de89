/**
 * The bytes of a customer's channel change in the log (`consent-log/channel/v1`), beside the
 * decisions' and the cookie choices' formats. Like theirs, it holds nothing personal in clear:
 * the customer id and the evidence enter only as salted SHA-256 commitments, the customer's the
 * same subject commitment as their decisions' leaves (`subjectCommitment`), the evidence the
 * same commitment as a decision's (`evidenceCommitment`: API key id, address, user agent). Add
 * formats, never alter one: old receipts verify against it.
 *
 * ```
 * consent-log/channel/v1
 * record <channel change id>
 * time <ISO 8601 UTC>
 * product <product code>
 * channel <email|sms|push|phone|post>
 * blocked <0|1>
 * subject <base64 commitment>
 * evidence <base64 commitment>
 * ```
 */
export interface ChannelLeafFields {
  recordId: string;
  time: string;
  /** The product's code, fixed once the product is made. */
  productCode: string;
  channel: string;
  blocked: boolean;
  /** base64: `subjectCommitment(salt, customer id)`, as in the customer's decisions' leaves. */
  subject: string;
  /** base64, from `evidenceCommitment`. */
  evidence: string;
}

export const channelLeafHeader = 'consent-log/channel/v1';

export function channelLeafText(f: ChannelLeafFields): string {
  return [
    channelLeafHeader,
    `record ${f.recordId}`,
    `time ${f.time}`,
    `product ${f.productCode}`,
    `channel ${f.channel}`,
    `blocked ${f.blocked ? 1 : 0}`,
    `subject ${f.subject}`,
    `evidence ${f.evidence}`,
    '',
  ].join('\n');
}

/** The fields of a channel leaf's text, or undefined when it is not a channel v1 leaf. */
export function parseChannelLeaf(text: string): ChannelLeafFields | undefined {
  const match =
    /^consent-log\/channel\/v1\nrecord (\S+)\ntime (\S+)\nproduct (\S+)\nchannel ([a-z][a-z0-9_-]*)\nblocked ([01])\nsubject (\S+)\nevidence (\S+)\n$/.exec(
      text,
    );
  if (!match) return undefined;
  const [, recordId, time, productCode, channel, blocked, subject, evidence] =
    match as unknown as string[];
  return {
    recordId: recordId as string,
    time: time as string,
    productCode: productCode as string,
    channel: channel as string,
    blocked: blocked === '1',
    subject: subject as string,
    evidence: evidence as string,
  };
}
