import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from '../platform/error-handler.js';
import { AppError } from '../platform/errors.js';
import type { AuthThrottle } from './auth-throttle.js';
import type { KeyCheck } from './key-check.js';
import { prefixOf } from './keys.js';
import type { ApiCaller } from './schemas.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the key check on every `/api/v1` request that passed it. */
    caller: ApiCaller | null;
  }
}

/** Every `/api/v1` path but the health check needs a key, unknown paths included. */
function needsApiKey(url: string): boolean {
  const path = url.split('?', 1)[0] ?? '';
  if (path === '/api/v1/health') return false;
  return path === '/api/v1' || path.startsWith('/api/v1/');
}

/** Calls `next` with the request's refusal, or with nothing once it may go on. */
export type Gate = (request: FastifyRequest, next: (refusal?: Error) => void) => void;

/**
 * The key check, for the service's one `onRequest` hook (src/app/app.ts): it runs before the body is
 * read, so a request without a valid key is `401 1002` whatever else is wrong with it. A key
 * whose record is cached (nearly every request) is answered without a promise.
 */
export function createApiKeyGate(
  app: FastifyInstance,
  keys: KeyCheck,
  throttle: AuthThrottle,
): Gate {
  app.decorateRequest('caller', null);
  return (request, done) => {
    if (!needsApiKey(request.url)) return done();
    const retryAfter = throttle.blockedFor(request.ip);
    if (retryAfter > 0) {
      return done(
        new AppError('tooManyRequests', { headers: { 'retry-after': String(retryAfter) } }),
      );
    }
    const admit = (caller: ApiCaller | undefined) => {
      if (!caller) {
        throttle.recordFailure(request.ip);
        return done(new AppError('unauthorized'));
      }
      request.caller = caller;
      done();
    };
    const presented = presentedKey(request);
    // Without a well-formed key the answer is known now: refusing before this hook yields lets
    // the 401 go out before a malformed body can provoke an answer of its own.
    if (presented === undefined || !prefixOf(presented)) return admit(undefined);
    const now = keys.known(presented);
    if (now) return admit(now.verdict);
    keys.check(presented).then(admit, done);
  };
}

export function callerOf(request: FastifyRequest): ApiCaller {
  if (!request.caller) throw new AppError('unauthorized');
  return request.caller;
}

/** What runs after a request passed the key check (the rate limit): an error refuses it. */
export type AfterKeyCheck = (request: FastifyRequest, reply: FastifyReply) => AppError | undefined;

/**
 * Answers a request the router could not even parse (bad percent-encoding, an over-long
 * parameter) in the order of the other requests: `401 1002` when it needed a key and has no
 * valid one, then what `afterKeyCheck` refuses (`429 1008`), otherwise the error itself.
 */
export async function refuseUnroutable(
  keys: KeyCheck,
  afterKeyCheck: AfterKeyCheck,
  error: Error,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  if (needsApiKey(request.url)) {
    let caller: ApiCaller | undefined;
    try {
      caller = await keys.check(presentedKey(request));
    } catch (lookupError) {
      sendError(lookupError, request, reply);
      return;
    }
    if (!caller) {
      sendError(new AppError('unauthorized'), request, reply);
      return;
    }
    request.caller = caller;
    const refusal = afterKeyCheck(request, reply);
    if (refusal) {
      sendError(refusal, request, reply);
      return;
    }
  }
  sendError(error, request, reply);
}

function presentedKey(request: FastifyRequest): string | undefined {
  const header = request.headers['x-system-api-key'];
  return typeof header === 'string' ? header : undefined;
}
