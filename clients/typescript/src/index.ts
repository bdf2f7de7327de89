/**
 * @module
 * A typed client of the consent API for server-side callers. The API key it sends is a secret:
 * never ship it, or this client configured with it, to a browser or an app.
 *
 * @example
 * ```ts
 * import { ConsentApiError, createConsentClient } from '@consent-service/client';
 *
 * const consent = createConsentClient({ baseUrl: 'https://consent.example.com', apiKey });
 * const { accepted, consent_version } = await consent.pending('c-1001', 'privacy_policy');
 * if (!accepted) {
 *   await consent.decide('c-1001', {
 *     consent_version_id: consent_version.consent_version_id,
 *     decision: 'given',
 *   });
 * }
 * ```
 */
export {
  type CallOptions,
  type ConsentClient,
  type ConsentClientOptions,
  type ConsentsPage,
  createConsentClient,
  type DecideOptions,
  type DecisionOutcome,
  type DecisionResult,
  type EvidencePackFile,
  type HistoryOptions,
  type LocaleOptions,
} from './client.js';
export {
  ConsentApiError,
  type ConsentApiErrorDetail,
  type ConsentErrorCode,
  errorCodes,
} from './errors.js';
export {
  type RateLimitInfo,
  type ResponseInfo,
  responseOf,
  type WithResponse,
} from './response.js';
export { backoffDelay, parseRetryAfter, type RetryOptions } from './retry.js';
export type { paths } from './schema.js';
export type * from './types.js';
export {
  type VerifiedWebhook,
  verifyWebhook,
  type WebhookEvent,
  type WebhookEventOf,
  type WebhookEventType,
  type WebhookHeaders,
  WebhookVerificationError,
} from './webhooks.js';
