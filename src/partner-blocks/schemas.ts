import { type Static, Type } from 'typebox';
import { uuidPattern } from '../platform/ids.js';

export const DecisionIdParam = Type.String({
  pattern: uuidPattern,
  description: "The decision's id (`decision_id` of the decision's answer)",
});

// Any code reaches the service, which answers `404 1004` for one the decision's version does
// not list.
export const PartnerCodeParam = Type.String({
  minLength: 1,
  maxLength: 64,
  description: "The partner's code, as the version lists it",
  examples: ['acme-analytics'],
});

export const PartnerBlockRequest = Type.Object(
  {
    blocked: Type.Boolean({
      description: 'true blocks sharing with the partner on this decision; false allows it again',
    }),
  },
  { additionalProperties: false },
);
export type PartnerBlockRequest = Static<typeof PartnerBlockRequest>;

const blockFields = {
  partner_code: Type.String(),
  blocked: Type.Boolean(),
  since: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When the latest change was recorded; null when the partner was never blocked',
  }),
  record_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
    description:
      "The latest change's id (its receipt: `GET /api/v1/partner-block-changes/{id}/receipt`); null when the partner was never blocked",
  }),
};

export const PartnerBlockSchema = Type.Object(blockFields);

export const DecisionPartnerList = Type.Object({
  data: Type.Array(
    Type.Object({
      partner_code: blockFields.partner_code,
      name: Type.String(),
      blocked: blockFields.blocked,
      since: blockFields.since,
      record_id: blockFields.record_id,
    }),
    { description: "Every partner the decision's version lists, by code" },
  ),
});
