import { type TSchema, Type } from 'typebox';
import { RecordedDecision } from '../decisions/index.js';
import { eventTypes } from '../webhooks/index.js';

/**
 * The webhook events as the OpenAPI document describes them (its 3.1 `webhooks`): the body of
 * each event a tenant's endpoint receives (docs/webhooks.md), and the Standard Webhooks headers
 * that sign it. The payloads are made by the features that write the events and by the
 * dispatcher (src/webhooks); a test checks delivered events against these schemas.
 */

const DateTime = Type.String({ format: 'date-time' });
const LogIndex = Type.Integer({
  minimum: 0,
  description: "The record's leaf index in the tenant's decision log (what its receipt proves).",
});

const Via = Type.Optional(
  Type.Literal('preference-centre', {
    description:
      'Present only for a record the customer made on the preference centre (its evidence says so).',
  }),
);

const DecisionData = Type.Object(
  {
    ...RecordedDecision.properties,
    customer_id: Type.Union([Type.String(), Type.Null()], {
      description: 'The customer id; null once the customer was erased.',
    }),
    via: Via,
    log_index: LogIndex,
  },
  { description: 'The decision as the API answered it, and its place in the decision log.' },
);

const versionFields = {
  consent_version_id: Type.String({ format: 'uuid' }),
  template_code: Type.String(),
  version: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
    description: 'The version number; null while not numbered yet (`version.approved`).',
  }),
  tag: Type.String(),
  locale: Type.String({ description: 'The locale of the text (BCP 47).' }),
  allow_reconsent: Type.Boolean(),
  published_at: Type.Union([DateTime, Type.Null()], {
    description: 'When it is live (the go-live time of a scheduled one); null when approved.',
  }),
};

const VersionData = Type.Object(versionFields, { description: "A version's public fields." });

const ArchivedVersionData = Type.Object(
  { ...versionFields, archived_at: DateTime },
  { description: "The archived template's latest version, and when it was archived." },
);

const ErasureData = Type.Object(
  {
    customer_id: Type.Union([Type.String(), Type.Null()], {
      description:
        'The erased customer id while an endpoint subscribed to this event has still to be ' +
        'sent it; otherwise null.',
    }),
    erased_at: DateTime,
    log_index: Type.Optional(LogIndex),
  },
  { description: 'An erasure; `log_index` is that of its first tombstone.' },
);

const CookieDecisionData = Type.Object(
  {
    decision_id: Type.String({ format: 'uuid' }),
    visitor_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
      description: "The visitor id the banner keeps in the site's cookie; null once erased.",
    }),
    system: Type.String({ description: "The system's public scope (`data-scope`)." }),
    configuration_id: Type.String({ format: 'uuid' }),
    configuration_version: Type.Integer({ minimum: 1 }),
    method: Type.Union([
      Type.Literal('accept-all'),
      Type.Literal('reject-all'),
      Type.Literal('custom'),
      Type.Literal('gpc'),
    ]),
    categories: Type.Record(Type.String(), Type.Boolean(), {
      description: 'Every category of the configuration: granted (true) or denied.',
    }),
    locale: Type.String(),
    origin: Type.String({ description: "The page's origin." }),
    decided_at: DateTime,
    log_index: LogIndex,
  },
  { description: "A website visitor's cookie choice, and its place in the decision log." },
);

const ChannelChangeData = Type.Object(
  {
    change_id: Type.String({ format: 'uuid', description: "The change's id (its receipt's)." }),
    customer_id: Type.Union([Type.String(), Type.Null()], {
      description: 'The customer id; null once the customer was erased.',
    }),
    product_code: Type.String(),
    channel: Type.String({
      description: "`email`, `sms`, `push`, `phone`, `post`, or one of the tenant's own codes.",
    }),
    blocked: Type.Boolean({ description: 'true: blocked from then on; false: allowed again.' }),
    changed_at: DateTime,
    actor: Type.Object(
      {
        api_key_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
        user_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
      },
      {
        description:
          'Who made it: the API key that sent it, or the back-office user (the other null).',
      },
    ),
    via: Via,
    log_index: LogIndex,
  },
  { description: "A customer's channel change, and its place in the decision log." },
);

const PartnerBlockData = Type.Object(
  {
    change_id: Type.String({ format: 'uuid', description: "The change's id (its receipt's)." }),
    customer_id: Type.Union([Type.String(), Type.Null()], {
      description: 'The customer id; null once the customer was erased.',
    }),
    decision_id: Type.String({ format: 'uuid', description: 'The decision the block is on.' }),
    partner_code: Type.String(),
    blocked: Type.Boolean({ description: 'true: blocked from then on; false: allowed again.' }),
    changed_at: DateTime,
    actor: ChannelChangeData.properties.actor,
    via: Via,
    log_index: LogIndex,
  },
  {
    description: "A partner blocked or allowed on a customer's decision, and its place in the log.",
  },
);

const dataOfType: Record<(typeof eventTypes)[number], TSchema> = {
  'decision.given': DecisionData,
  'decision.reject': DecisionData,
  'decision.withdraw': DecisionData,
  'version.approved': VersionData,
  'version.published': VersionData,
  'version.scheduled': VersionData,
  'version.archived': ArchivedVersionData,
  'customer.erased': ErasureData,
  'cookie_decision.recorded': CookieDecisionData,
  'channel_change.recorded': ChannelChangeData,
  'partner_block.recorded': PartnerBlockData,
};

const summaries: Record<(typeof eventTypes)[number], string> = {
  'decision.given': 'A decision `given` was recorded',
  'decision.reject': 'A decision `reject` was recorded',
  'decision.withdraw': 'A decision `withdraw` was recorded',
  'version.approved': 'A reviewed version was approved in the back-office',
  'version.published': 'A version was published and is live',
  'version.scheduled': 'A version was published with a go-live time to come',
  'version.archived': 'A template with a published version was archived',
  'customer.erased': 'A customer was erased',
  'cookie_decision.recorded': "A website visitor's cookie choice was recorded",
  'channel_change.recorded': "A customer's contact channel was blocked or allowed",
  'partner_block.recorded': "A partner was blocked or allowed on a customer's decision",
};

/** The Standard Webhooks headers of every delivery. */
const deliveryHeaders = [
  {
    name: 'webhook-id',
    description: 'The event id: the same on every attempt and replay. Drop repeats by it.',
    schema: Type.String(),
  },
  {
    name: 'webhook-timestamp',
    description: "The attempt's time, in Unix seconds.",
    schema: Type.Integer({ minimum: 0 }),
  },
  {
    name: 'webhook-signature',
    description:
      'One or more space-separated `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` ' +
      'signatures, one per secret the endpoint signs with: a receiver accepts the message when ' +
      'any one of them verifies under its secret.',
    schema: Type.String({ pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$' }),
  },
  {
    name: 'webhook-position',
    description: "The event's position in the tenant's sequence (what a replay starts from).",
    schema: Type.Integer({ minimum: 1 }),
  },
].map((header) => ({ ...header, in: 'header', required: true }));

/** The body of one event type: `{type, timestamp, data}`. */
export function eventPayload(type: (typeof eventTypes)[number]): TSchema {
  return Type.Object({
    type: Type.Literal(type),
    timestamp: Type.String({ format: 'date-time', description: 'When the event happened (UTC).' }),
    data: dataOfType[type],
  });
}

/** OpenAPI 3.1 `webhooks`: one signed `POST` per event type, to the endpoint's URL. */
export const webhookPayloads: Record<string, unknown> = Object.fromEntries(
  eventTypes.map((type) => [
    type,
    {
      post: {
        operationId: `webhook.${type}`.replace(/[.](\w)/g, (_, c: string) => c.toUpperCase()),
        summary: summaries[type],
        tags: ['webhooks'],
        security: [],
        parameters: deliveryHeaders,
        requestBody: {
          required: true,
          content: { 'application/json': { schema: eventPayload(type) } },
        },
        responses: {
          '2XX': { description: 'Delivered: the cursor moves past this event.' },
          default: {
            description: 'Anything else, or no answer in time: tried again later, in order.',
          },
        },
      },
    },
  ]),
);
