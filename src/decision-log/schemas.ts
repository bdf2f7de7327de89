import { type Static, Type } from 'typebox';
import { RecordedDecision } from '../decisions/index.js';

const Base64Hash = Type.String({ description: 'SHA-256, base64', pattern: '^[A-Za-z0-9+/]{43}=$' });

export const LogKey = Type.Object({
  key_name: Type.String(),
  verifier_key: Type.String({ description: 'C2SP signed-note verifier key (Ed25519)' }),
  origin: Type.String({ description: "The checkpoint origin line of this tenant's log" }),
});
export type LogKey = Static<typeof LogKey>;

export const LogCheckpoint = Type.Object({
  origin: Type.String(),
  size: Type.Integer({ minimum: 0 }),
  root_hash: Base64Hash,
  checkpoint: Type.String({ description: 'C2SP tlog-checkpoint signed note, verbatim' }),
});
export type LogCheckpoint = Static<typeof LogCheckpoint>;

export const ConsistencyProof = Type.Object({
  from: Type.Integer({ minimum: 1 }),
  to: Type.Integer({ minimum: 1 }),
  proof: Type.Array(Base64Hash),
});
export type ConsistencyProof = Static<typeof ConsistencyProof>;

/** What every receipt carries, whatever record it proves: the leaf, where it is, the proof. */
function logProof(leafFormat: string) {
  return {
    leaf: Type.String({ description: `The leaf bytes (UTF-8 text, ${leafFormat})` }),
    leaf_index: Type.Integer({ minimum: 0 }),
    tree_size: Type.Integer({ minimum: 1 }),
    inclusion_proof: Type.Array(Base64Hash),
    checkpoint: Type.String({ description: 'The signed checkpoint the proof leads to' }),
    tlog_proof: Type.String({ description: 'The same proof as C2SP tlog-proof@v1 text' }),
    verifier_key: Type.String(),
  };
}
export type LogProof = Static<Type.TObject<ReturnType<typeof logProof>>>;

/** The channel a record came through, in its opening only when it was not the API's own. */
const Via = Type.Literal('preference-centre', {
  description:
    'Present only for a record the customer made on the preference centre; its evidence ' +
    'commitment then includes it',
});

export const Receipt = Type.Object({
  decision: Type.Object(
    { ...RecordedDecision.properties, customer_id: Type.Union([Type.String(), Type.Null()]) },
    { description: 'The decision (D); `customer_id` is null once the customer was erased' },
  ),
  ...logProof('consent-log/leaf/v1'),
  opening: Type.Union(
    [
      Type.Object({
        customer_id: Type.String(),
        subject_salt: Type.String(),
        evidence_salt: Type.String(),
        ip: Type.String(),
        user_agent: Type.Union([Type.String(), Type.Null()]),
        api_key_id: Type.String(),
        via: Type.Optional(Via),
      }),
      Type.Null(),
    ],
    {
      description:
        "What opens the leaf's subject and evidence commitments; null once the customer was erased",
    },
  ),
});
export type Receipt = Static<typeof Receipt>;

/** A website visitor's cookie decision, as its receipt states it (what its leaf commits to). */
export const ReceiptCookieDecision = Type.Object(
  {
    decision_id: Type.String({ format: 'uuid' }),
    system_id: Type.String({ format: 'uuid' }),
    configuration_id: Type.String({ format: 'uuid' }),
    configuration_version: Type.Integer({ minimum: 1 }),
    content_sha256: Type.String({
      pattern: '^[0-9a-f]{64}$',
      description: "Hex SHA-256 of the configuration's content the visitor was shown",
    }),
    method: Type.Enum(['accept-all', 'reject-all', 'custom', 'gpc']),
    categories: Type.Record(Type.String(), Type.Boolean(), {
      description: 'Every category of the configuration: granted (true) or denied',
    }),
    decided_at: Type.String({ format: 'date-time' }),
    visitor_id: Type.Union([Type.String(), Type.Null()], {
      description: "The visitor id of the site's consent cookie; null once the visitor was erased",
    }),
  },
  { description: "The visitor's choice" },
);

export const CookieReceipt = Type.Object({
  cookie_decision: ReceiptCookieDecision,
  ...logProof('consent-log/cookie/v1'),
  opening: Type.Union(
    [
      Type.Object({
        visitor_id: Type.String(),
        subject_salt: Type.String(),
        evidence_salt: Type.String(),
        ip: Type.String({ description: 'The address as the tenant keeps it' }),
        user_agent: Type.Union([Type.String(), Type.Null()]),
        origin: Type.String({ description: "The page's origin" }),
        locale: Type.String(),
      }),
      Type.Null(),
    ],
    {
      description:
        "What opens the leaf's visitor and evidence commitments; null once the visitor was erased",
    },
  ),
});
export type CookieReceipt = Static<typeof CookieReceipt>;

/** A customer's channel change, as its receipt states it (what its leaf commits to). */
export const ReceiptChannelChange = Type.Object(
  {
    change_id: Type.String({ format: 'uuid' }),
    product_code: Type.String(),
    channel: Type.String(),
    blocked: Type.Boolean(),
    changed_at: Type.String({ format: 'date-time' }),
    customer_id: Type.Union([Type.String(), Type.Null()], {
      description: 'Null once the customer was erased',
    }),
  },
  { description: 'The change' },
);

/**
 * What opens a control's leaf (a channel change, a partner block): a decision's opening, but the
 * change may have been made by a back-office user, named by `user_id`, with no API key.
 */
export const ControlOpening = Type.Union(
  [
    Type.Object({
      customer_id: Type.String(),
      subject_salt: Type.String(),
      evidence_salt: Type.String(),
      ip: Type.String(),
      user_agent: Type.Union([Type.String(), Type.Null()]),
      api_key_id: Type.Union([Type.String(), Type.Null()], {
        description: 'The API key that made the change; null when a back-office user made it',
      }),
      user_id: Type.Optional(
        Type.String({ description: 'The back-office user who made the change, if one did' }),
      ),
      via: Type.Optional(Via),
    }),
    Type.Null(),
  ],
  {
    description:
      "What opens the leaf's subject and evidence commitments; null once the customer was erased",
  },
);

export const ChannelReceipt = Type.Object({
  channel_change: ReceiptChannelChange,
  ...logProof('consent-log/channel/v1'),
  opening: ControlOpening,
});
export type ChannelReceipt = Static<typeof ChannelReceipt>;

/** A partner block's change on a customer's decision, as its receipt states it. */
export const ReceiptPartnerBlock = Type.Object(
  {
    change_id: Type.String({ format: 'uuid' }),
    decision_id: Type.String({ format: 'uuid', description: 'The decision the block is on' }),
    partner_code: Type.String(),
    blocked: Type.Boolean(),
    changed_at: Type.String({ format: 'date-time' }),
    customer_id: Type.Union([Type.String(), Type.Null()], {
      description: 'Null once the customer was erased',
    }),
  },
  { description: 'The change' },
);

export const PartnerBlockReceipt = Type.Object({
  partner_block: ReceiptPartnerBlock,
  ...logProof('consent-log/partner/v1'),
  opening: ControlOpening,
});
export type PartnerBlockReceipt = Static<typeof PartnerBlockReceipt>;

export const ChannelReceiptPending = Type.Object({
  change_id: Type.String({ format: 'uuid' }),
  status: Type.Literal('queued'),
});

export const ReceiptPending = Type.Object({
  decision_id: Type.String({ format: 'uuid' }),
  status: Type.Literal('queued'),
});
