import { type Static, Type } from 'typebox';
import { productCodePattern } from '../products/index.js';

export const ProductCodeParam = Type.String({
  pattern: productCodePattern,
  description: "The product's code",
});

// Any name reaches the service, which answers `404 1004` for one that is not a channel.
export const ChannelParam = Type.String({
  minLength: 1,
  maxLength: 64,
  description:
    "The channel: `email`, `sms`, `push`, `phone`, `post`, or one of the tenant's own codes",
  examples: ['email'],
});

export const ChannelChangeRequest = Type.Object(
  { blocked: Type.Boolean({ description: 'true blocks the channel; false allows it again' }) },
  { additionalProperties: false },
);
export type ChannelChangeRequest = Static<typeof ChannelChangeRequest>;

export const ChannelStateSchema = Type.Object({
  product_code: Type.String(),
  channel: Type.String(),
  blocked: Type.Boolean(),
  since: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When the latest change was recorded; null when the channel was never changed',
  }),
  record_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
    description:
      "The latest change's id (its receipt: `GET /api/v1/channel-changes/{id}/receipt`); null when the channel was never changed",
  }),
});

export const ChannelList = Type.Object({
  data: Type.Array(ChannelStateSchema, {
    description:
      "Every product of the tenant (by code) times every channel: the five, then the tenant's own by code",
  }),
});

/** A channel of the tenant's own: a lowercase slug (the service refuses the five's codes). */
export const channelCodePattern = '^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$';

export const NewTenantChannel = Type.Object(
  {
    code: Type.String({ pattern: channelCodePattern }),
    name: Type.String({ minLength: 1, maxLength: 200 }),
  },
  { additionalProperties: false },
);
export type NewTenantChannel = Static<typeof NewTenantChannel>;
