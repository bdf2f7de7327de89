/**
 * What every receipt carries, whatever kind of record it proves (its leaf, where it is in the
 * log, the proof), and the parts kinds share: the opening of a customer's record and the channel
 * a record came through. Each kind's receipt schema is built from these in its own folder.
 */
import { type Static, type TProperties, Type } from 'typebox';
import type { LeafFormat } from '../proof/index.js';
import type { OpenedPersonal } from './kind.js';

const Base64Hash = Type.String({ description: 'SHA-256, base64', pattern: '^[A-Za-z0-9+/]{43}=$' });

/** The proof's fields of a receipt whose leaf is in `leafFormat` (`consent-log/leaf/v1`). */
export function logProof(leafFormat: string) {
  return {
    leaf: Type.String({ description: `The leaf bytes (UTF-8 text, ${leafFormat})` }),
    leaf_index: Type.Integer({ minimum: 0 }),
    tree_size: Type.Integer({ minimum: 1 }),
    inclusion_proof: Type.Array(Base64Hash),
    checkpoint: Type.String({ description: 'The signed checkpoint the proof leads to' }),
    tlog_proof: Type.String({ description: 'The same proof as C2SP tlog-proof@v1 text' }),
    verifier_key: Type.String(),
    cosigned_checkpoint: Type.Optional(
      Type.String({
        description:
          'With witnesses configured: the checkpoint the proof leads to, with the cosignature ' +
          "lines of the witnesses (C2SP tlog-cosignature) appended to the log's signature. " +
          'Absent while no checkpoint a quorum of them cosigned covers the record.',
      }),
    ),
    timestamp: Type.Optional(
      Type.Object(
        {
          token: Type.String({
            description: 'base64 of the DER RFC 3161 TimeStampToken over SHA-256 of `checkpoint`',
          }),
          checkpoint: Type.String({ description: 'The signed checkpoint note time-stamped' }),
          consistency_proof: Type.Array(Base64Hash, {
            description: "RFC 6962 proof from the receipt's checkpoint to the time-stamped one",
          }),
        },
        {
          description:
            'With time-stamping authorities configured: the first time-stamped checkpoint at or ' +
            "after the receipt's. Absent while none is.",
        },
      ),
    ),
    publication: Type.Optional(
      Type.Object(
        {
          leaf: Type.String({
            description: 'The publication leaf (UTF-8 text, consent-log/publication/v1)',
          }),
          leaf_index: Type.Integer({ minimum: 0, description: "Before the record's own" }),
          inclusion_proof: Type.Array(Base64Hash, {
            description: "Its RFC 6962 inclusion proof under the receipt's checkpoint",
          }),
        },
        {
          description:
            'For a record made on a published text (a version, a cookie configuration): the ' +
            'leaf its publication left in the log before the record, stating the SHA-256 of the ' +
            "text the record's leaf commits to. Absent for a text published before publications " +
            'were logged.',
        },
      ),
    ),
  };
}
export type LogProof = Static<Type.TObject<ReturnType<typeof logProof>>>;

/** The channel a record came through, in its opening only when it was not the API's own. */
export const Via = Type.Literal('preference-centre', {
  description:
    'Present only for a record the customer made on the preference centre; its evidence ' +
    'commitment then includes it',
});

/** What every opening of a customer's leaf holds: the customer, the evidence, their salts. */
export const customerOpeningFields = {
  customer_id: Type.String(),
  subject_salt: Type.String(),
  evidence_salt: Type.String(),
  ip: Type.String(),
  user_agent: Type.Union([Type.String(), Type.Null()]),
};

/**
 * What opens a control's leaf (a channel change, a partner block): a decision's opening, but the
 * change may have been made by a back-office user, named by `user_id`, with no API key.
 */
export const ControlOpening = Type.Union(
  [
    Type.Object({
      ...customerOpeningFields,
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

/**
 * A control change's receipt (a channel change's, a partner block's): the change as its leaf
 * commits to it (its id, the kind's own fields, blocked, when, whose), the proof, the opening.
 */
export function controlReceipt(
  format: Pick<LeafFormat, 'header' | 'section'>,
  fields: TProperties,
) {
  return Type.Object({
    [format.section]: Type.Object(
      {
        change_id: Type.String({ format: 'uuid' }),
        ...fields,
        blocked: Type.Boolean(),
        changed_at: Type.String({ format: 'date-time' }),
        customer_id: Type.Union([Type.String(), Type.Null()], {
          description: 'Null once the customer was erased',
        }),
      },
      { description: 'The change' },
    ),
    ...logProof(format.header),
    opening: ControlOpening,
  });
}

/**
 * What opens a customer's record's leaf, as its receipt states it: the customer and the
 * evidence with their salts, the key or the back-office user who made it, `via` when the
 * preference centre did; null once the customer was erased. It must open what
 * `customerOpening` (src/proof) checks.
 */
export function customerRecordOpening(
  record: { evidence_salt: string; api_key_id: string | null; user_id: string | null },
  personal: OpenedPersonal,
) {
  if (!personal) return null;
  return {
    customer_id: personal.personal.customer_id,
    subject_salt: personal.salt,
    evidence_salt: record.evidence_salt,
    ip: personal.personal.ip,
    user_agent: personal.personal.user_agent,
    api_key_id: record.api_key_id,
    ...(record.user_id ? { user_id: record.user_id } : {}),
    ...(personal.personal.via === 'preference-centre' ? { via: 'preference-centre' } : {}),
  };
}
