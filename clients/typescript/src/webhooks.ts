import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { webhooks } from './schema.js';

/** The type of an event: `decision.given`, `version.published`, `customer.erased`, … */
export type WebhookEventType = keyof webhooks;

/** One event's body, `{type, timestamp, data}`, typed from the service's OpenAPI document. */
export type WebhookEventOf<T extends WebhookEventType> =
  webhooks[T]['post']['requestBody']['content']['application/json'];

/** Any event: narrow it by `type` (`if (event.type === 'decision.given') event.data.…`). */
export type WebhookEvent = { [T in WebhookEventType]: WebhookEventOf<T> }[WebhookEventType];

/** A delivery's headers: a `Headers`, or Node's `request.headers`. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/** A verified event, with the delivery facts its headers carry. */
export interface VerifiedWebhook {
  event: WebhookEvent;
  /** `webhook-id`: the same on every attempt and replay of the event; drop repeats by it. */
  id: string;
  /** `webhook-position`: the event's place in the tenant's sequence (what a replay starts from). */
  position: number | undefined;
}

/**
 * Checks that a delivery was signed by the service, with the reference Standard Webhooks
 * library, and answers its event, typed. `body` is the raw body as received (the bytes signed:
 * never a parsed and re-serialized object). `secrets` is the endpoint's `whsec_…` secret, or
 * several: while you move to a rotated secret, pass the new and the old, and a delivery signed
 * under either is accepted. The `webhook-signature` header may carry several signatures (one per
 * secret the service signs with); one that verifies is enough. A timestamp more than five
 * minutes off is refused, against replays. Throws `WebhookVerificationError` otherwise.
 */
export function verifyWebhook(
  body: string | Uint8Array,
  headers: WebhookHeaders,
  secrets: string | readonly string[],
): VerifiedWebhook {
  const signed = {
    'webhook-id': headerOf(headers, 'webhook-id'),
    'webhook-timestamp': headerOf(headers, 'webhook-timestamp'),
    'webhook-signature': headerOf(headers, 'webhook-signature'),
  };
  const payload = typeof body === 'string' ? body : new TextDecoder().decode(body);
  const keys = typeof secrets === 'string' ? [secrets] : secrets;
  if (keys.length === 0) throw new WebhookVerificationError('No secret to verify with');
  let failure: unknown;
  for (const secret of keys) {
    try {
      const event = new Webhook(secret).verify(payload, signed) as WebhookEvent;
      const position = headerOf(headers, 'webhook-position');
      return {
        event,
        id: signed['webhook-id'],
        position: /^\d+$/.test(position) ? Number(position) : undefined,
      };
    } catch (error) {
      failure = error;
    }
  }
  throw failure;
}

function headerOf(headers: WebhookHeaders, name: string): string {
  if (headers instanceof Headers) return headers.get(name) ?? '';
  const value = headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(' ') : (value ?? '');
}

export { WebhookVerificationError };
