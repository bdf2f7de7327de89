import createClient from 'openapi-fetch';
import { ConsentApiError } from './errors.js';
import { responseInfo, type WithResponse, withResponse } from './response.js';
import {
  defaultRetries,
  type FetchPolicy,
  parseRetryAfter,
  type RetryOptions,
  retryingFetch,
  sendWithTimeLimit,
} from './retry.js';
import type { paths } from './schema.js';
import type {
  AllowedOrigins,
  ChannelReceipt,
  ChannelState,
  Checkpoint,
  ConsentAsOf,
  ConsentStatus,
  ConsentStatusRequest,
  ConsentVersion,
  ConsistencyProof,
  CookieReceipt,
  CustomerConsents,
  Decision,
  DecisionPartner,
  DecisionRequest,
  Health,
  HistoryEntry,
  LogKey,
  PartnerBlock,
  PartnerBlockReceipt,
  PendingConsent,
  PreferenceLink,
  PreferenceLinkRequest,
  QueuedChange,
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
  /**
   * How many `latest` answers to keep, by template and locale, to ask again with `If-None-Match`
   * (default 100); `0` keeps none and always asks for the whole version.
   */
  latestCacheSize?: number;
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

export interface HistoryOptions extends CallOptions {
  /** Decisions per page, 1 to 500 (the service's default: 100). */
  limit?: number;
  /** Where to start: a page's `next_cursor` (the first page when absent). */
  cursor?: string;
  /** Any BCP 47 tag: each decision then also gives `locale`, that of the text shown. */
  locale?: string;
}

/**
 * What became of a decision: `recorded` (`201`, stored now), `unchanged` (`200`: the same as the
 * customer's most recent one on a version that does not allow re-consent; nothing stored), or
 * `replayed` (the `Idempotency-Key` you gave was seen before: the first answer again, nothing
 * stored). A key the client made itself is never seen before, so a try sent again after a lost
 * answer tells what the first try did (`recorded` or `unchanged`), not `replayed`.
 */
export type DecisionOutcome = 'recorded' | 'unchanged' | 'replayed';

/** A decision as `decide` answers it: D, with its `outcome` and its answer's `response`. */
export type DecisionResult = WithResponse<Decision> & { readonly outcome: DecisionOutcome };

/** A page of a customer's record, with its answer's `response`. */
export type ConsentsPage = WithResponse<CustomerConsents>;

/** A customer's evidence pack as downloaded: the ZIP's bytes and the name the service gave it. */
export interface EvidencePackFile {
  bytes: Uint8Array;
  fileName: string;
}

export interface ConsentClient {
  /** `GET /api/health`: the health check's body, on `200` and on `503` alike; never tried again. */
  health(options?: CallOptions): Promise<WithResponse<Health>>;
  /**
   * `GET …/consent-templates/{code}/latest`: the template's latest published version. The answer
   * is kept with its `ETag`; the next call asks with `If-None-Match`, and a `304` is answered from
   * what was kept (`response.status` is then `304`).
   */
  latest(templateCode: string, options?: LocaleOptions): Promise<WithResponse<ConsentVersion>>;
  /** `GET …/customers/{id}/consents/templates/{code}/pending`: is there something to accept? */
  pending(
    customerId: string,
    templateCode: string,
    options?: LocaleOptions,
  ): Promise<WithResponse<PendingConsent>>;
  /**
   * `POST …/customers/{id}/consents/decisions`: records the decision, or answers the earlier one;
   * `outcome` says which (`recorded`, `unchanged`, `replayed`). A refusal is thrown.
   */
  decide(
    customerId: string,
    decision: DecisionRequest,
    options?: DecideOptions,
  ): Promise<DecisionResult>;
  /**
   * `GET …/customers/{id}/consents`: one page of the customer's record (standings on each
   * template, decisions newest first); `next_cursor` asks for the next (null on the last).
   */
  consents(customerId: string, options?: HistoryOptions): Promise<ConsentsPage>;
  /** Every page of the customer's record, from `cursor` (or the first) to the last. */
  consentPages(customerId: string, options?: HistoryOptions): AsyncIterableIterator<ConsentsPage>;
  /** Every decision of the customer, newest first, over as many pages as it takes. */
  history(customerId: string, options?: HistoryOptions): AsyncIterableIterator<HistoryEntry>;
  /**
   * `GET …/customers/{id}/consents/templates/{code}/as-of?at=`: what was in force for the
   * customer and template at a moment (a `Date`, or an RFC 3339 date-time with a time zone).
   */
  asOf(
    customerId: string,
    templateCode: string,
    at: Date | string,
    options?: LocaleOptions,
  ): Promise<WithResponse<ConsentAsOf>>;
  /**
   * `POST …/consents/status`: where customers stand on one template at a moment (default now),
   * in the order asked, with the decision log's checkpoint covering the answer. The service
   * answers up to 1,000 ids a request: a longer list is asked in parts of 1,000, one after
   * another, all at the moment the first answered for, and answered as one (an id repeated
   * once, where it first appears; the newest checkpoint; the last request's `response`). A part
   * refused refuses the whole call.
   */
  consentStatus(
    request: Omit<ConsentStatusRequest, 'at'> & { at?: Date | string },
    options?: CallOptions,
  ): Promise<WithResponse<ConsentStatus>>;
  /**
   * `GET …/decisions/{id}/receipt`: the receipt, or `{status: "queued"}` while the decision waits
   * to be appended to the log (about a second); `wait: true` asks the service to wait for it.
   */
  receipt(
    decisionId: string,
    options?: CallOptions & { wait?: boolean },
  ): Promise<WithResponse<Receipt | QueuedReceipt>>;
  /**
   * `GET …/cookie-decisions/{id}/receipt`: a website visitor's choice's receipt (the id the
   * banner's `POST /cookies/v1/{scope}/decisions` answered), or `{status: "queued"}`, as
   * `receipt`.
   */
  cookieReceipt(
    decisionId: string,
    options?: CallOptions & { wait?: boolean },
  ): Promise<WithResponse<CookieReceipt | QueuedReceipt>>;
  /**
   * `GET …/customers/{id}/evidence`: the customer's evidence pack, one ZIP with every record's
   * receipt under one checkpoint, the texts shown and a signed manifest (`verify-receipt
   * --pack` checks it).
   */
  evidencePack(customerId: string, options?: CallOptions): Promise<WithResponse<EvidencePackFile>>;
  /**
   * `PUT …/customers/{id}/channels/{product}/{channel}`: blocks (`true`) or allows a customer's
   * channel for a product; answers the channel's state (`outcome`: `recorded`, `unchanged` when
   * it already had it, or `replayed` when `idempotencyKey` was used before and the service
   * answered the first request's answer again).
   */
  setChannel(
    customerId: string,
    target: { productCode: string; channel: string },
    blocked: boolean,
    options?: CallOptions & { idempotencyKey?: string },
  ): Promise<WithResponse<ChannelState> & { outcome: DecisionOutcome }>;
  /** `GET …/customers/{id}/channels`: every product of the tenant times every channel. */
  channels(customerId: string, options?: CallOptions): Promise<WithResponse<ChannelState[]>>;
  /**
   * `PUT …/customers/{id}/consents/decisions/{decision}/partners/{code}`: blocks (`true`) or
   * allows one partner on one of the customer's decisions; answers the partner's state
   * (`outcome` as `setChannel`'s).
   */
  setPartnerBlock(
    customerId: string,
    target: { decisionId: string; partnerCode: string },
    blocked: boolean,
    options?: CallOptions & { idempotencyKey?: string },
  ): Promise<WithResponse<PartnerBlock> & { outcome: DecisionOutcome }>;
  /** `GET …/customers/{id}/consents/decisions/{decision}/partners`: its partners and blocks. */
  partnerBlocks(
    customerId: string,
    decisionId: string,
    options?: CallOptions,
  ): Promise<WithResponse<DecisionPartner[]>>;
  /** `GET …/channel-changes/{id}/receipt`: a channel change's receipt, as `receipt`. */
  channelReceipt(
    changeId: string,
    options?: CallOptions & { wait?: boolean },
  ): Promise<WithResponse<ChannelReceipt | QueuedChange>>;
  /** `GET …/partner-block-changes/{id}/receipt`: a partner block's receipt, as `receipt`. */
  partnerBlockReceipt(
    changeId: string,
    options?: CallOptions & { wait?: boolean },
  ): Promise<WithResponse<PartnerBlockReceipt | QueuedChange>>;
  /**
   * `POST …/customers/{id}/preference-links`: a link to the customer's own page (the preference
   * centre), for the backend to send them to or frame; it opens once, within `ttl_seconds`
   * (15 minutes when absent). The key stays here: only the link reaches the browser.
   */
  preferenceLink(
    customerId: string,
    request?: PreferenceLinkRequest,
    options?: CallOptions,
  ): Promise<WithResponse<PreferenceLink>>;
  /**
   * `GET …/preference-centre/allowed-origins`: the origins a preference link's `return_url` may
   * lead to, and that may frame the customer's page.
   */
  allowedOrigins(options?: CallOptions): Promise<WithResponse<AllowedOrigins>>;
  /**
   * `PUT …/preference-centre/allowed-origins`: replaces the whole list (empty: none), checked as
   * the back-office checks it (`400 1001` naming `body.allowed_origins`); answers the list as
   * kept, each origin once and in its canonical form. Audited as made by the API key.
   */
  setAllowedOrigins(
    origins: readonly string[],
    options?: CallOptions,
  ): Promise<WithResponse<AllowedOrigins>>;
  /** `GET …/log/key`: the decision log's verifier key. */
  logKey(options?: CallOptions): Promise<WithResponse<LogKey>>;
  /** `GET …/log/checkpoint`: the decision log's latest signed checkpoint. */
  checkpoint(options?: CallOptions): Promise<WithResponse<Checkpoint>>;
  /** `GET …/log/consistency?from&to`: proof that the log of size `to` extends the one of `from`. */
  consistency(
    from: number,
    to: number,
    options?: CallOptions,
  ): Promise<WithResponse<ConsistencyProof>>;
}

/**
 * A client of the consent API for a server: every call authenticated with the API key, tried
 * again where that is safe, and answered with the `data` object (with its answer's `response`:
 * status, request id, rate limit), or thrown as a `ConsentApiError` carrying the contract's code.
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
  const kept = new LatestCache(options.latestCacheSize ?? 100);

  /** One page of a customer's record. */
  async function consentsPage(
    customerId: string,
    { limit, cursor, locale, signal }: HistoryOptions,
  ): Promise<ConsentsPage> {
    const { data, error, response } = await api.GET('/api/v1/customers/{customer_id}/consents', {
      params: {
        path: { customer_id: customerId },
        query: {
          ...(limit === undefined ? {} : { limit }),
          ...(cursor === undefined ? {} : { cursor }),
          ...localeQuery(locale),
        },
      },
      signal,
    });
    return data ? withResponse(data.data, responseInfo(response)) : throwError(response, error);
  }

  /**
   * One request of bulk status; a refusal's details name an id by its place in the caller's list
   * (`placeOf`), not in this part.
   */
  async function statusPart(
    { at, ...body }: ConsentStatusRequest,
    signal: AbortSignal | undefined,
    placeOf: (index: number) => number = (index) => index,
  ): Promise<WithResponse<ConsentStatus>> {
    const { data, error, response } = await api.POST('/api/v1/consents/status', {
      body: { ...body, ...(at === undefined ? {} : { at }) },
      signal,
    });
    if (data) return withResponse(data.data, responseInfo(response));
    return throwError(response, withIdPlaces(error, placeOf));
  }

  async function* pages(customerId: string, options: HistoryOptions) {
    let cursor = options.cursor;
    for (;;) {
      const page = await consentsPage(customerId, { ...options, cursor });
      yield page;
      if (page.next_cursor === null) return;
      cursor = page.next_cursor;
    }
  }

  return {
    async health({ signal } = {}) {
      const { data, error, response } = await api.GET('/api/health', {
        // The health check needs no key, and asks about this moment: one try, no key sent.
        headers: { 'x-system-api-key': null },
        fetch: (request) => sendWithTimeLimit(send, request, policy.timeoutMs),
        signal,
      });
      const body = data ?? error;
      if ((response.ok || response.status === 503) && isHealth(body)) {
        return withResponse(body, responseInfo(response));
      }
      throw apiError(response, error);
    },
    async latest(templateCode, { locale, signal } = {}) {
      const key = JSON.stringify([templateCode, locale ?? null]);
      const known = kept.get(key);
      const { data, error, response } = await api.GET(
        '/api/v1/consent-templates/{template_code}/latest',
        {
          params: { path: { template_code: templateCode }, query: localeQuery(locale) },
          ...(known ? { headers: { 'if-none-match': known.etag } } : {}),
          signal,
        },
      );
      if (response.status === 304 && known) {
        kept.set(key, known);
        return withResponse(structuredClone(known.version), responseInfo(response));
      }
      if (!data) return throwError(response, error);
      const etag = response.headers.get('etag');
      if (etag) kept.set(key, { etag, version: structuredClone(data.data) });
      return withResponse(data.data, responseInfo(response));
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
      return data ? withResponse(data.data, responseInfo(response)) : throwError(response, error);
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
      if (!data) return throwError(response, error);
      return changed(data.data, response, idempotencyKey) as DecisionResult;
    },
    consents(customerId, options = {}) {
      return consentsPage(customerId, options);
    },
    consentPages(customerId, options = {}) {
      return pages(customerId, options);
    },
    async *history(customerId, options = {}) {
      for await (const page of pages(customerId, options)) yield* page.history;
    },
    async asOf(customerId, templateCode, at, { locale, signal } = {}) {
      const { data, error, response } = await api.GET(
        '/api/v1/customers/{customer_id}/consents/templates/{template_code}/as-of',
        {
          params: {
            path: { customer_id: customerId, template_code: templateCode },
            query: { at: at instanceof Date ? at.toISOString() : at, ...localeQuery(locale) },
          },
          signal,
        },
      );
      return data ? withResponse(data.data, responseInfo(response)) : throwError(response, error);
    },
    async consentStatus({ at, ...request }, { signal } = {}) {
      const moment = at instanceof Date ? at.toISOString() : at;
      const ids = request.customer_ids;
      if (ids.length <= statusIdsPerRequest) return statusPart({ ...request, at: moment }, signal);
      // An id repeated is answered once, where it first appears, as in one answer of the service.
      const places = new Map<string, number>();
      ids.forEach((id, place) => {
        if (!places.has(id)) places.set(id, place);
      });
      const unique = [...places.keys()];
      const answers: WithResponse<ConsentStatus>[] = [];
      // One part after another: the first fixes the moment the others are asked about, and a
      // large list does not take more of the key's rate limit at once than a single call does.
      for (let start = 0; start < unique.length; start += statusIdsPerRequest) {
        const part = unique.slice(start, start + statusIdsPerRequest);
        answers.push(
          await statusPart(
            { ...request, customer_ids: part, at: moment ?? answers[0]?.at },
            signal,
            (index) => places.get(part[index] as string) ?? index,
          ),
        );
      }
      return mergedStatus(answers);
    },
    async receipt(decisionId, { wait, signal } = {}) {
      const { data, error, response } = await api.GET('/api/v1/decisions/{decision_id}/receipt', {
        params: receiptParams(decisionId, wait),
        signal,
      });
      return data ? withResponse(data.data, responseInfo(response)) : throwError(response, error);
    },
    async cookieReceipt(decisionId, { wait, signal } = {}) {
      const { data, error, response } = await api.GET(
        '/api/v1/cookie-decisions/{decision_id}/receipt',
        { params: receiptParams(decisionId, wait), signal },
      );
      return data ? withResponse(data.data, responseInfo(response)) : throwError(response, error);
    },
    async evidencePack(customerId, { signal } = {}) {
      const { data, error, response } = await api.GET('/api/v1/customers/{customer_id}/evidence', {
        params: { path: { customer_id: customerId } },
        parseAs: 'arrayBuffer',
        signal,
      });
      if (!data) return throwError(response, error);
      const disposition = response.headers.get('content-disposition') ?? '';
      const fileName = /filename="?([^";]+)"?/.exec(disposition)?.[1] ?? 'evidence.zip';
      return withResponse({ bytes: new Uint8Array(data), fileName }, responseInfo(response));
    },
    async setChannel(customerId, { productCode, channel }, blocked, options = {}) {
      const { data, error, response } = await api.PUT(
        '/api/v1/customers/{customer_id}/channels/{product_code}/{channel}',
        {
          params: {
            path: { customer_id: customerId, product_code: productCode, channel },
            header: keyHeader(options.idempotencyKey),
          },
          body: { blocked },
          signal: options.signal,
        },
      );
      return data
        ? changed(data.data, response, options.idempotencyKey)
        : throwError(response, error);
    },
    async channels(customerId, { signal } = {}) {
      const { data, error, response } = await api.GET('/api/v1/customers/{customer_id}/channels', {
        params: { path: { customer_id: customerId } },
        signal,
      });
      return data ? withResponse(data.data, responseInfo(response)) : throwError(response, error);
    },
    async setPartnerBlock(customerId, { decisionId, partnerCode }, blocked, options = {}) {
      const { data, error, response } = await api.PUT(
        '/api/v1/customers/{customer_id}/consents/decisions/{decision_id}/partners/{partner_code}',
        {
          params: {
            path: { customer_id: customerId, decision_id: decisionId, partner_code: partnerCode },
            header: keyHeader(options.idempotencyKey),
          },
          body: { blocked },
          signal: options.signal,
        },
      );
      return data
        ? changed(data.data, response, options.idempotencyKey)
        : throwError(response, error);
    },
    async partnerBlocks(customerId, decisionId, { signal } = {}) {
      const { data, error, response } = await api.GET(
        '/api/v1/customers/{customer_id}/consents/decisions/{decision_id}/partners',
        { params: { path: { customer_id: customerId, decision_id: decisionId } }, signal },
      );
      return data ? withResponse(data.data, responseInfo(response)) : throwError(response, error);
    },
    async channelReceipt(changeId, { wait, signal } = {}) {
      const { data, error, response } = await api.GET(
        '/api/v1/channel-changes/{change_id}/receipt',
        { params: changeReceiptParams(changeId, wait), signal },
      );
      return data ? withResponse(data.data, responseInfo(response)) : throwError(response, error);
    },
    async partnerBlockReceipt(changeId, { wait, signal } = {}) {
      const { data, error, response } = await api.GET(
        '/api/v1/partner-block-changes/{change_id}/receipt',
        { params: changeReceiptParams(changeId, wait), signal },
      );
      return data ? withResponse(data.data, responseInfo(response)) : throwError(response, error);
    },
    async preferenceLink(customerId, request = {}, { signal } = {}) {
      const { data, error, response } = await api.POST(
        '/api/v1/customers/{customer_id}/preference-links',
        { params: { path: { customer_id: customerId } }, body: request, signal },
      );
      return data ? withResponse(data.data, responseInfo(response)) : throwError(response, error);
    },
    async allowedOrigins({ signal } = {}) {
      const { data, error, response } = await api.GET('/api/v1/preference-centre/allowed-origins', {
        signal,
      });
      return data ? withResponse(data.data, responseInfo(response)) : throwError(response, error);
    },
    async setAllowedOrigins(origins, { signal } = {}) {
      const { data, error, response } = await api.PUT('/api/v1/preference-centre/allowed-origins', {
        body: { allowed_origins: [...origins] },
        signal,
      });
      return data ? withResponse(data.data, responseInfo(response)) : throwError(response, error);
    },
    async logKey({ signal } = {}) {
      const { data, error, response } = await api.GET('/api/v1/log/key', { signal });
      return data ? withResponse(data.data, responseInfo(response)) : throwError(response, error);
    },
    async checkpoint({ signal } = {}) {
      const { data, error, response } = await api.GET('/api/v1/log/checkpoint', { signal });
      return data ? withResponse(data.data, responseInfo(response)) : throwError(response, error);
    },
    async consistency(from, to, { signal } = {}) {
      const { data, error, response } = await api.GET('/api/v1/log/consistency', {
        params: { query: { from, to } },
        signal,
      });
      return data ? withResponse(data.data, responseInfo(response)) : throwError(response, error);
    },
  };
}

/**
 * The `latest` answers kept to ask again with `If-None-Match`, the least recently used dropped
 * past `size` (a Map keeps its keys in insertion order; a hit is put back at the end).
 */
class LatestCache {
  readonly #entries = new Map<string, { etag: string; version: ConsentVersion }>();
  constructor(readonly size: number) {}

  get(key: string) {
    const entry = this.#entries.get(key);
    if (entry) this.#entries.delete(key);
    return entry;
  }

  set(key: string, entry: { etag: string; version: ConsentVersion }) {
    if (this.size <= 0) return;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.size) break;
      this.#entries.delete(oldest);
    }
  }
}

/** The most customer ids the service answers in one bulk status request. */
const statusIdsPerRequest = 1000;

/**
 * The answers of a list's parts as one: the customers in the order asked, under the newest
 * checkpoint (the log only grows, so what an older one covered the newest covers too), with the
 * last request's `response` (its rate limit the freshest).
 */
function mergedStatus(answers: WithResponse<ConsentStatus>[]): WithResponse<ConsentStatus> {
  const [first, ...rest] = answers as [
    WithResponse<ConsentStatus>,
    ...WithResponse<ConsentStatus>[],
  ];
  const last = rest.at(-1) ?? first;
  const newest = answers.reduce((a, b) => (b.checkpoint.size > a.checkpoint.size ? b : a));
  return withResponse(
    {
      template_code: first.template_code,
      at: first.at,
      customers: answers.flatMap((answer) => answer.customers),
      checkpoint: newest.checkpoint,
    },
    last.response,
  );
}

/** An error body whose details name `body.customer_ids.N` with N mapped by `placeOf`. */
function withIdPlaces(body: unknown, placeOf: (index: number) => number): unknown {
  const details = (body as { details?: unknown } | undefined)?.details;
  if (!Array.isArray(details)) return body;
  return {
    ...(body as object),
    details: details.map((detail: { field?: unknown }) => {
      const match =
        typeof detail.field === 'string' && /^body\.customer_ids\.(\d+)(.*)$/.exec(detail.field);
      return match
        ? { ...detail, field: `body.customer_ids.${placeOf(Number(match[1]))}${match[2]}` }
        : detail;
    }),
  };
}

/** A receipt's path and query, whatever record it proves. */
function receiptParams(decisionId: string, wait: boolean | undefined) {
  return {
    path: { decision_id: decisionId },
    query: wait === undefined ? {} : { wait: wait ? ('true' as const) : ('false' as const) },
  };
}

function changeReceiptParams(changeId: string, wait: boolean | undefined) {
  return {
    path: { change_id: changeId },
    query: wait === undefined ? {} : { wait: wait ? ('true' as const) : ('false' as const) },
  };
}

function keyHeader(key: string | undefined): { 'idempotency-key'?: string } {
  return key === undefined ? {} : { 'idempotency-key': key };
}

/**
 * A decision or a control's new state, and whether the request recorded it (`201`), found it so
 * (`200`), or was answered again for its key (`Idempotent-Replayed: true`, whatever the first
 * status was).
 */
function changed<T extends object>(
  state: T,
  response: Response,
  idempotencyKey: string | undefined,
): WithResponse<T> & { outcome: DecisionOutcome } {
  const result = withResponse(state, responseInfo(response));
  // Only a key of the caller's can have been used by an earlier call.
  const replayed =
    idempotencyKey !== undefined && response.headers.get('idempotent-replayed') === 'true';
  const outcome: DecisionOutcome = replayed
    ? 'replayed'
    : response.status === 201
      ? 'recorded'
      : 'unchanged';
  Object.defineProperty(result, 'outcome', { value: outcome, enumerable: false });
  return result as WithResponse<T> & { outcome: DecisionOutcome };
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
    replayed: response.headers.get('idempotent-replayed') === 'true',
  });
}

function throwError(response: Response, body: unknown): never {
  throw apiError(response, body);
}
