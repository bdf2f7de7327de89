import { type TSchema, Type } from 'typebox';
import type { EventKinds } from './delivery.js';

/**
 * The webhook events as the OpenAPI document describes them (its 3.1 `webhooks`): the body of
 * each event a tenant's endpoint receives (docs/webhooks.md), and the Standard Webhooks headers
 * that sign it. Each kind of record declares its events' payloads (src/record-kinds); a test
 * checks delivered events against these schemas.
 */

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
export function eventPayload(kinds: Pick<EventKinds, 'byEventType'>, type: string): TSchema {
  const payload = kinds.byEventType(type)?.events?.types[type];
  if (!payload) throw new Error(`no kind of record sends ${type}`);
  return Type.Object({
    type: Type.Literal(type),
    timestamp: Type.String({ format: 'date-time', description: 'When the event happened (UTC).' }),
    data: payload.data,
  });
}

/** OpenAPI 3.1 `webhooks`: one signed `POST` per event type, to the endpoint's URL. */
export function webhookPayloads(kinds: EventKinds): Record<string, unknown> {
  return Object.fromEntries(
    kinds.eventTypes.map((type) => [
      type,
      {
        post: {
          operationId: `webhook.${type}`.replace(/[.](\w)/g, (_, c: string) => c.toUpperCase()),
          summary: kinds.byEventType(type)?.events?.types[type]?.summary,
          tags: ['webhooks'],
          security: [],
          parameters: deliveryHeaders,
          requestBody: {
            required: true,
            content: { 'application/json': { schema: eventPayload(kinds, type) } },
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
}
