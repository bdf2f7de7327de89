/**
 * A customer's channel change, as a kind of record: a control (src/record-kinds/control-kind.ts)
 * on a product's contact channel, kept per customer.
 */
import { Type } from 'typebox';
import { channelLeafFormat } from '../proof/index.js';
import { controlKind } from '../record-kinds/index.js';

export const channelChanges = controlKind({
  name: 'channel',
  tables: {
    changes: 'channel_changes',
    states: 'channel_states',
    target: ['product_id', 'product_code', 'channel'],
    stateKey: ['product_id', 'channel'],
    bySubject: true,
  },
  format: channelLeafFormat,
  leaf: { productCode: 'product_code', channel: 'channel' },
  shown: ['product_code', 'channel'],
  stated: ['product_code', 'channel'],
  event: {
    type: 'channel_change.recorded',
    summary: "A customer's contact channel was blocked or allowed",
    description: "A customer's channel change, and its place in the decision log.",
    fields: {
      product_code: Type.String(),
      channel: Type.String({
        description: "`email`, `sms`, `push`, `phone`, `post`, or one of the tenant's own codes.",
      }),
    },
  },
  // The customer is named by the change's id alone: an erasure leaves nothing in the audit log
  // that leads to them.
  audit: {
    blocked: 'channel.blocked',
    allowed: 'channel.allowed',
    entry: ({ id, target }) => ({
      target: id,
      details: { product_code: target.product_code, channel: target.channel },
    }),
  },
  receipt: {
    path: '/api/v1/channel-changes/:change_id/receipt',
    param: 'change_id',
    operationId: 'getChannelChangeReceipt',
    summary:
      "A customer's channel change's receipt: its leaf, inclusion proof and signed checkpoint",
    description:
      "The same proof as a decision's receipt, for a leaf in the channel format (consent-log/channel/v1).",
    fields: { product_code: Type.String(), channel: Type.String() },
    notFound: 'Channel change not found.',
    queued: 'the change',
  },
});
