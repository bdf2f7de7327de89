import createClient from 'openapi-fetch';
import { ConsentApiError } from './errors.js';
import {
  defaultRetries,
  type FetchPolicy,
  parseRetryAfter,
  type RetryOptions,
  retryingFetch,
  withTimeLimit,
} from './retry.js';
import type { paths } from './schema.js';
import type {
  Checkpoint,
  ConsentVersion,
  ConsistencyProof,
  Decision,
  DecisionRequest,
  Health,
  LogKey,
  PendingConsent,
  QueuedReceipt,
  Receipt,
} from './types.js';

export interface ConsentClientOptions {
  /** Where the service answers, such as `https://consent.example.com` (without `/api`). */
  baseUrl: string;
  /** The tenant's API key (`csk_…`), sent as `x-system-api-key`. A secret: servers only. */
  apiKey: string;
  /** The `fetch` to send with (default: the global one), for a proxy agent or instrumentation. */
  fetch?: (request: Request) => Promise<Response>;
  /** Tries again on `429` and `503` and, where safe, on network errors (`RetryOptions`). */
  retries?: RetryOptions;
  /** Each try's time limit in milliseconds (default 10 s); `0` sets none. */
  timeoutMs?: number;
}

export interface CallOptions {
  /** Ends the call, its tries and its waits at once. */
  signal?: AbortSignal;
}

export interface LocaleOptions extends CallOptions {
  /** A BCP 47 tag (`th`, `en-GB`): the variant in that locale, or the nearest one. */
  locale?: string;
}

export interface DecideOptions extends CallOptions {
  /**
   * The decision's `Idempotency-Key` (1 to 255 printable ASCII characters). Each call makes a
   * new one unless given, and sends the same one on each of its tries, so that a decision tried
   * again is stored once. Give your own to make a decision idempotent across calls too (a job
   * run again after a crash): within 24 hours, the service answers it with the first answer.
   */
  idempotencyKey?: string;
}

export interface ConsentClient {
  /** `GET /api/health`: the health check's body, on `200` and on `503` alike; never tried again. */
  health(options?: CallOptions): Promise<Health>;
  /** `GET …/consent-templates/{code}/latest`: the template's latest published version. */
  latest(templateCode: string, options?: LocaleOptions): Promise<ConsentVersion>;
  /** `GET …/customers/{id}/consents/templates/{code}/pending`: is there something to accept? */
  pending(
    customerId: string,
    templateCode: string,
    options?: LocaleOptions,
  ): Promise<PendingConsent>;
  /** `POST …/customers/{id}/consents/decisions`: records the decision (or answers the earlier one). */
  decide(customerId: string, decision: DecisionRequest, options?: DecideOptions): Promise<Decision>;
  /**
   * `GET …/decisions/{id}/receipt`: the receipt, or `{status: "queued"}` while the decision waits
   * to be appended to the log (about a second); `wait: true` asks the service to wait for it.
   */
  receipt(
    decisionId: string,
    options?: CallOptions & { wait?: boolean },
  ): Promise<Receipt | QueuedReceipt>;
  /** `GET …/log/key`: the decision log's verifier key. */
  logKey(options?: CallOptions): Promise<LogKey>;
  /** `GET …/log/checkpoint`: the decision log's latest signed checkpoint. */
  checkpoint(options?: CallOptions): Promise<Checkpoint>;
  /** `GET …/log/consistency?from&to`: proof that the log of size `to` extends the one of `from`. */
  consistency(from: number, to: number, options?: CallOptions): Promise<ConsistencyProof>;
}

/**
 * A client of the consent API for a server: every call authenticated with the API key, tried
 * again where that is safe, and answered with the `data` object, or thrown as a
 * `ConsentApiError` carrying the contract's code.
 */
export function createConsentClient(options: ConsentClientOptions): ConsentClient {
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const policy: FetchPolicy = {
    ...defaultRetries,
    ...options.retries,
    timeoutMs: options.timeoutMs ?? 10_000,
  };
  const api = createClient<paths>({
    baseUrl: options.baseUrl,
    headers: { 'x-system-api-key': options.apiKey },
    fetch: retryingFetch(send, policy),
  });

  return {
    async health({ signal } = {}) {
      const { data, error, response } = await api.GET('/api/health', {
        // The health check needs no key, and asks about this moment: one try, no key sent.
        headers: { 'x-system-api-key': null },
        fetch: (request) => send(withTimeLimit(request, policy.timeoutMs)),
        signal,
      });
      const body = data ?? error;
      if ((response.ok || response.status === 503) && isHealth(body)) return body;
      throw apiError(response, error);
    },
    async latest(templateCode, { locale, signal } = {}) {
      const { data, error, response } = await api.GET(
        '/api/v1/consent-templates/{template_code}/latest',
        { params: { path: { template_code: templateCode }, query: localeQuery(locale) }, signal },
      );
      return data ? data.data : throwError(response, error);
    },
    async pending(customerId, templateCode, { locale, signal } = {}) {
      const { data, error, response } = await api.GET(
        '/api/v1/customers/{customer_id}/consents/templates/{template_code}/pending',
        {
          params: {
            path: { customer_id: customerId, template_code: templateCode },
            query: localeQuery(locale),
          },
          signal,
        },
      );
      return data ? data.data : throwError(response, error);
    },
    async decide(customerId, decision, { idempotencyKey, signal } = {}) {
      const { data, error, response } = await api.POST(
        '/api/v1/customers/{customer_id}/consents/decisions',
        {
          params: {
            path: { customer_id: customerId },
            header: { 'idempotency-key': idempotencyKey ?? crypto.randomUUID() },
          },
          body: decision,
          signal,
        },
      );
      return data ? data.data : throwError(response, error);
    },
    async receipt(decisionId, { wait, signal } = {}) {
      const { data, error, response } = await api.GET('/api/v1/decisions/{decision_id}/receipt', {
        params: {
          path: { decision_id: decisionId },
          query: wait === undefined ? {} : { wait: wait ? 'true' : 'false' },
        },
        signal,
      });
      return data ? data.data : throwError(response, error);
    },
    async logKey({ signal } = {}) {
      const { data, error, response } = await api.GET('/api/v1/log/key', { signal });
      return data ? data.data : throwError(response, error);
    },
    async checkpoint({ signal } = {}) {
      const { data, error, response } = await api.GET('/api/v1/log/checkpoint', { signal });
      return data ? data.data : throwError(response, error);
    },
    async consistency(from, to, { signal } = {}) {
      const { data, error, response } = await api.GET('/api/v1/log/consistency', {
        params: { query: { from, to } },
        signal,
      });
      return data ? data.data : throwError(response, error);
    },
  };
}

function localeQuery(locale: string | undefined): { locale?: string } {
  return locale === undefined ? {} : { locale };
}

function isHealth(body: unknown): body is Health {
  return typeof body === 'object' && body !== null && 'status' in body && 'success' in body;
}

function apiError(response: Response, body: unknown): ConsentApiError {
  return new ConsentApiError(response.status, body, {
    requestId: response.headers.get('x-request-id') ?? undefined,
    retryAfterMs: parseRetryAfter(response.headers.get('retry-after')),
  });
}

function throwError(response: Response, body: unknown): never {
  throw apiError(response, body);
}
