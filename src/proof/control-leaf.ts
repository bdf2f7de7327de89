import { customerOpening, type LeafFormat, lineLeafFormat } from './leaf-format.js';

/**
 * The bytes of a customer's control change in the log: a channel blocked or allowed for a
 * product (`consent-log/channel/v1`), a partner blocked or allowed on one of their decisions
 * (`consent-log/partner/v1`). Like the decisions' format, a leaf holds nothing personal in
 * clear: the customer id and the evidence enter only as the same salted SHA-256 commitments as
 * their decisions' (`subjectCommitment`, `evidenceCommitment`), and the same opening opens them.
 * Add formats, never alter one: old receipts verify against it.
 *
 * ```
 * consent-log/channel/v1             consent-log/partner/v1
 * record <channel change id>         record <partner block change id>
 * time <ISO 8601 UTC>                time <ISO 8601 UTC>
 * product <product code>             decision <decision id>
 * channel <email|sms|push|…>         partner <partner code>
 * blocked <0|1>                      blocked <0|1>
 * subject <base64 commitment>        subject <base64 commitment>
 * evidence <base64 commitment>       evidence <base64 commitment>
 * ```
 */
interface ControlLeaf {
  recordId: string;
  time: string;
  blocked: boolean;
  /** base64: `subjectCommitment(salt, customer id)`, as in the customer's decisions' leaves. */
  subject: string;
  /** base64, from `evidenceCommitment`. */
  evidence: string;
}

export interface ChannelLeafFields extends ControlLeaf {
  /** The product's code, fixed once the product is made. */
  productCode: string;
  channel: string;
}

export interface PartnerLeafFields extends ControlLeaf {
  /** The decision the block is on. */
  decisionId: string;
  /** The partner's code, fixed once made. */
  partnerCode: string;
}

const head = [
  { label: 'record', field: 'recordId' },
  { label: 'time', field: 'time' },
] as const;
const tail = [
  { label: 'blocked', field: 'blocked', type: 'flag' },
  { label: 'subject', field: 'subject' },
  { label: 'evidence', field: 'evidence' },
] as const;

export const channelLeafFormat: LeafFormat<ChannelLeafFields> = lineLeafFormat<ChannelLeafFields>({
  header: 'consent-log/channel/v1',
  kind: 'channel-change',
  noun: 'channel change',
  section: 'channel_change',
  folder: 'channel-changes',
  lines: [
    ...head,
    { label: 'product', field: 'productCode' },
    { label: 'channel', field: 'channel', pattern: '[a-z][a-z0-9_-]*' },
    ...tail,
  ],
  record: (leaf) => ({
    change_id: leaf.recordId,
    changed_at: leaf.time,
    product_code: leaf.productCode,
    channel: leaf.channel,
    blocked: leaf.blocked,
  }),
  opening: customerOpening,
});

export const partnerLeafFormat: LeafFormat<PartnerLeafFields> = lineLeafFormat<PartnerLeafFields>({
  header: 'consent-log/partner/v1',
  kind: 'partner-block',
  noun: 'partner block',
  section: 'partner_block',
  folder: 'partner-blocks',
  lines: [
    ...head,
    { label: 'decision', field: 'decisionId' },
    { label: 'partner', field: 'partnerCode', pattern: '[a-z0-9][a-z0-9-]*' },
    ...tail,
  ],
  record: (leaf) => ({
    change_id: leaf.recordId,
    changed_at: leaf.time,
    decision_id: leaf.decisionId,
    partner_code: leaf.partnerCode,
    blocked: leaf.blocked,
  }),
  opening: customerOpening,
});
