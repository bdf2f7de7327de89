/**
 * A partner block's change, as a kind of record: a control (src/record-kinds/control-kind.ts)
 * on one partner of one of the customer's decisions, which must be theirs.
 */
import { Type } from 'typebox';
import { partnerLeafFormat } from '../proof/index.js';
import { controlKind } from '../record-kinds/index.js';

export const partnerBlocks = controlKind({
  name: 'partner',
  tables: {
    changes: 'partner_block_changes',
    states: 'partner_block_states',
    target: ['decision_id', 'partner_code'],
    stateKey: ['decision_id', 'partner_code'],
    bySubject: false,
  },
  format: partnerLeafFormat,
  leaf: { decisionId: 'decision_id', partnerCode: 'partner_code' },
  shown: ['decision_id', 'partner_code'],
  stated: ['partner_code'],
  // The service checked that the decision is the customer's and lists the partner; a customer
  // erased since then has no subject any more.
  onRecord: { notFound: 'Decision not found.' },
  event: {
    type: 'partner_block.recorded',
    summary: "A partner was blocked or allowed on a customer's decision",
    description: "A partner blocked or allowed on a customer's decision, and its place in the log.",
    fields: {
      decision_id: Type.String({ format: 'uuid', description: 'The decision the block is on.' }),
      partner_code: Type.String(),
    },
  },
  audit: {
    blocked: 'partner_block.blocked',
    allowed: 'partner_block.allowed',
    entry: ({ id, target }) => ({
      target: target.decision_id as string,
      details: { partner: target.partner_code, record_id: id },
    }),
  },
  receipt: {
    path: '/api/v1/partner-block-changes/:change_id/receipt',
    param: 'change_id',
    operationId: 'getPartnerBlockReceipt',
    summary: "A partner block's change's receipt: its leaf, inclusion proof and signed checkpoint",
    description:
      "The same proof as a decision's receipt, for a leaf in the partner block format (consent-log/partner/v1).",
    fields: {
      decision_id: Type.String({ format: 'uuid', description: 'The decision the block is on' }),
      partner_code: Type.String(),
    },
    notFound: 'Partner block change not found.',
    queued: 'the change',
  },
});
