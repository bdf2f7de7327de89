/**
 * The two reads a client's app makes on every screen, `latest` and `pending`, answered straight
 * from Node's HTTP server when the request is the common case: a GET with no query string and no
 * `If-None-Match`, a key whose record is cached and within its rate limit, a template whose
 * release is cached. Everything else (an error, a key to read from the store, a conditional
 * request, a `?locale=`, traces on) goes to Fastify, which answers it as it always has.
 *
 * The answer is the one Fastify would send, byte for byte: the same headers in the same order
 * (the request id, the security headers, `RateLimit-*`, the route's own), the same body, the same
 * request log line and metrics. Fastify's routing, hooks, request and reply objects cost a
 * request more than the rest of `latest` together (bench/notebook.md, "2026-11-27, 16:00
 * to 17:29: reads as the store grows"); a read answered here pays none of them.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import proxyAddr from '@fastify/proxy-addr';
import type { FastifyBaseLogger } from 'fastify';
import type { AuthThrottle, KeyCheck } from '../api-keys/index.js';
import {
  customerIdPattern,
  getPendingState,
  type HeldActs,
  type PendingReads,
  pendingAnswer,
} from '../decisions/index.js';
import type { Config } from '../platform/config.js';
import type { AnswerObserver } from '../platform/http-metrics.js';
import type { RateLimit } from '../platform/rate-limit.js';
import { HeaderList, type ReadAnswer } from '../platform/read-answer.js';
import { redactSecrets } from '../platform/redact.js';
import { requestIdFor } from '../platform/request-id.js';
import { securityHeaders } from '../platform/security-headers.js';
import type { SubjectVault } from '../subjects/index.js';
import {
  type Catalog,
  latestAnswer,
  requestedLocales,
  templateCodePattern,
} from '../templates/index.js';

/** The route patterns, as Fastify registers them (the metrics' `route` label). */
export const latestRoute = '/api/v1/consent-templates/:template_code/latest';
export const pendingRoute =
  '/api/v1/customers/:customer_id/consents/templates/:template_code/pending';

const inner = (pattern: string) => pattern.replace(/^\^/, '').replace(/\$$/, '');
// The parameters' own patterns: a path they do not match is Fastify's to refuse. Neither
// pattern admits `%`, so nothing here needs decoding.
const latestPath = new RegExp(`^/api/v1/consent-templates/(${inner(templateCodePattern)})/latest$`);
const pendingPath = new RegExp(
  `^/api/v1/customers/(${inner(customerIdPattern)})/consents/templates/(${inner(templateCodePattern)})/pending$`,
);

/** What the reads need of the service, made by `app.ts`. */
export interface HotReadsDeps {
  config: Pick<Config, 'trustProxy'>;
  keys: KeyCheck;
  throttle: AuthThrottle;
  rateLimit: RateLimit | undefined;
  catalog: Catalog;
  pending: PendingReads;
  /** The first acts of co-consents held: what `pending` says is missing. */
  held: Pick<HeldActs, 'missing'>;
  vault: SubjectVault;
  log: FastifyBaseLogger;
  /** True once shutdown began: every request then goes to Fastify (`503 1009`). */
  closing(): boolean;
  /** The routes' metrics, when they are on. */
  observe?: { latest: AnswerObserver; pending: AnswerObserver };
}

/** Answers the request and returns true, or returns false (and touches nothing) for Fastify. */
export type HotReads = (
  request: IncomingMessage,
  response: ServerResponse,
  fallback: () => void,
) => boolean;

export function createHotReads(deps: HotReadsDeps): HotReads {
  const { keys, throttle, rateLimit, catalog, log } = deps;
  const addressOf = remoteAddress(deps.config.trustProxy);

  /** The caller, when every check before the route passes without a promise. */
  function callerOf(request: IncomingMessage, ip: string) {
    if (throttle.blockedFor(ip) > 0) return undefined;
    const presented = request.headers['x-system-api-key'];
    if (typeof presented !== 'string') return undefined;
    return keys.known(presented)?.verdict;
  }

  /**
   * Sends the route's answer (made by the function the route's handler calls) with its headers
   * in Fastify's order (the request id, the security headers, `RateLimit-*`, the route's own,
   * the body's type and length), then its log line and metrics, as Fastify's hooks would.
   */
  function send(
    request: IncomingMessage,
    response: ServerResponse,
    limits: Record<string, string>,
    answer: ReadAnswer & { body: string },
    started: number,
    ip: string,
    observe: AnswerObserver | undefined,
  ): void {
    const requestId = requestIdFor(request);
    response.writeHead(answer.status, {
      'x-request-id': requestId,
      ...securityHeaders,
      ...limits,
      ...Object.fromEntries(answer.headers),
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(answer.body)),
    });
    response.end(answer.body);
    const responseTime = performance.now() - started;
    log.info(
      {
        reqId: requestId,
        method: 'GET',
        url: redactSecrets(request.url ?? ''),
        statusCode: answer.status,
        responseTime,
        remoteAddress: ip,
      },
      'request completed',
    );
    observe?.('GET', answer.status, responseTime);
  }

  /**
   * The rate limit's headers, counted last, once the answer is known: undefined when it refuses
   * (Fastify answers that, counting it once more, past the limit either way).
   */
  function limitsOf(apiKeyId: string): Record<string, string> | undefined {
    if (rateLimit === undefined) return {};
    const limits = new HeaderList();
    return rateLimit(apiKeyId, limits) === undefined
      ? Object.fromEntries(limits.entries)
      : undefined;
  }

  return (request, response, fallback) => {
    try {
      return answer(request, response, fallback);
    } catch {
      // Nothing is written before the answer is whole: an unknown template (its absence cached),
      // or anything else that throws, is Fastify's to answer.
      return response.headersSent;
    }
  };

  function answer(
    request: IncomingMessage,
    response: ServerResponse,
    fallback: () => void,
  ): boolean {
    if (request.method !== 'GET' || deps.closing()) return false;
    const url = request.url ?? '';
    if (url.length > 400 || request.headers['if-none-match'] !== undefined) return false;
    const latest = latestPath.exec(url);
    const pending = latest ? null : pendingPath.exec(url);
    if (!latest && !pending) return false;
    const started = performance.now();
    const ip = addressOf(request);
    const caller = callerOf(request, ip);
    if (!caller) return false;
    const requested = requestedLocales(undefined, request.headers['accept-language']);

    if (latest) {
      const release = catalog.latestInMemory(caller.tenantId, latest[1] as string);
      if (!release) return false;
      // No If-None-Match reaches here: the answer is always a 200 with its body.
      const made = latestAnswer(release, requested, undefined);
      const limits = limitsOf(caller.apiKeyId);
      if (!limits || made.body === undefined) return false;
      const body = made.body;
      send(request, response, limits, { ...made, body }, started, ip, deps.observe?.latest);
      return true;
    }

    const [, customerId, code] = pending as RegExpExecArray;
    getPendingState(
      deps.pending,
      catalog,
      deps.vault,
      caller.tenantId,
      customerId as string,
      code as string,
      requested,
      deps.held,
    )
      .then((state) => {
        if (deps.closing()) return false;
        const made = pendingAnswer(state, requested);
        const limits = limitsOf(caller.apiKeyId);
        if (!limits || made.body === undefined) return false;
        const body = made.body;
        send(request, response, limits, { ...made, body }, started, ip, deps.observe?.pending);
        return true;
      })
      // An unknown template, a store that is down: Fastify asks again and answers the error.
      .catch(() => response.headersSent)
      .then((answered) => {
        if (!answered) fallback();
      });
    return true;
  }
}

/** The client's address as Fastify's `request.ip` gives it, under the same `TRUST_PROXY`. */
function remoteAddress(trustProxy: Config['trustProxy']): (request: IncomingMessage) => string {
  if (trustProxy === false) return (request) => request.socket.remoteAddress ?? '';
  const trust =
    typeof trustProxy === 'function'
      ? trustProxy
      : trustProxy === true
        ? () => true
        : proxyAddr.compile(trustProxy.split(',').map((value) => value.trim()));
  return (request) => {
    const addresses = proxyAddr.all(request, trust);
    return addresses[addresses.length - 1] ?? '';
  };
}
