/** How a failed try is tried again. Every field has a default. */
export interface RetryOptions {
  /** Tries in all, the first included (default 3); `1` never tries again. */
  attempts?: number;
  /** The first wait's ceiling, doubled for each further try (default 200 ms). */
  baseDelayMs?: number;
  /**
   * The longest wait between two tries (default 10 s). An answer whose `Retry-After` asks for
   * longer is not waited for: it is thrown, with `retryAfterMs`, for the caller to decide.
   */
  maxDelayMs?: number;
}

export interface FetchPolicy extends Required<RetryOptions> {
  /** Each try's own time limit in milliseconds; `0` sets none. */
  timeoutMs: number;
}

export const defaultRetries: Required<RetryOptions> = {
  attempts: 3,
  baseDelayMs: 200,
  maxDelayMs: 10_000,
};

/**
 * `Retry-After` in milliseconds from now: delay-seconds (`"120"`) or an HTTP date (RFC 9110
 * section 10.2.3); a date already past is `0`. `undefined` when absent or unreadable.
 */
export function parseRetryAfter(
  value: string | null,
  now: number = Date.now(),
): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Every HTTP date form starts with the day's name; Date.parse would read "-1" as a year.
  if (!/^[A-Za-z]{3}/.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * The wait before try number `retry + 1` (`retry` counts from 0): exponential backoff with full
 * jitter, a random share of `base * 2^retry` capped at `max`, so that callers turned away at the
 * same moment do not all come back at the same moment.
 */
export function backoffDelay(
  retry: number,
  policy: Pick<FetchPolicy, 'baseDelayMs' | 'maxDelayMs'>,
  random: () => number = Math.random,
): number {
  return Math.floor(random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry));
}

/**
 * A request is safe to send again when sending it twice changes nothing more than once: a read,
 * or a write that carries an `Idempotency-Key` (the service answers its repeat with the first
 * answer and stores nothing).
 */
function repeatable(request: Request): boolean {
  return (
    request.method === 'GET' || request.method === 'HEAD' || request.headers.has('idempotency-key')
  );
}

/**
 * `fetch` with the policy: each try under its own time limit (and the caller's signal), and
 * tried again, after a wait, when the answer is `429` (refused before anything was done), or,
 * for a repeatable request, `503` or no answer at all (a network error, a try's time limit).
 * A wait is at least the answer's `Retry-After`. The caller's own signal ends it all at once.
 */
export function retryingFetch(
  send: (request: Request) => Promise<Response>,
  policy: FetchPolicy,
): (request: Request) => Promise<Response> {
  return async (request) => {
    for (let attempt = 1; ; attempt += 1) {
      const last = attempt >= policy.attempts;
      let response: Response;
      try {
        response = await sendWithTimeLimit(send, request, policy.timeoutMs);
      } catch (error) {
        if (request.signal.aborted || last || !repeatable(request)) throw error;
        await sleep(backoffDelay(attempt - 1, policy), request.signal);
        continue;
      }
      const tryAgain = response.status === 429 || (response.status === 503 && repeatable(request));
      if (!tryAgain || last) return response;
      const asked = parseRetryAfter(response.headers.get('retry-after'));
      if (asked !== undefined && asked > policy.maxDelayMs) return response;
      await response.body?.cancel();
      await sleep(Math.max(asked ?? 0, backoffDelay(attempt - 1, policy)), request.signal);
    }
  };
}

/**
 * One try of a copy of `request` under a time limit (which covers reading the answer's body too)
 * as well as the caller's own signal; `0` sets no limit. `request` itself is left unsent, to be
 * copied again for the next try.
 *
 * The limit is a timer of its own aborting a controller of its own, and the timer holds the
 * request it was made for until the answer's body has been read (then both are let go). On
 * Node.js 20 neither `AbortSignal.timeout()` inside `AbortSignal.any()` nor a `Request`'s signal
 * following another signal survives a garbage collection: each holds the next link weakly
 * (nodejs/undici#4068), and a try whose server never answered then waited forever.
 */
export function sendWithTimeLimit(
  send: (request: Request) => Promise<Response>,
  request: Request,
  timeoutMs: number,
): Promise<Response> {
  if (timeoutMs <= 0) return send(request.clone());
  const limit = new AbortController();
  const abort = () => limit.abort(request.signal.reason);
  if (request.signal.aborted) abort();
  else request.signal.addEventListener('abort', abort, { once: true });
  const limited = new Request(request.clone(), { signal: limit.signal });
  const timer = setTimeout(() => {
    void limited;
    limit.abort(new DOMException('The try ran out of time.', 'TimeoutError'));
  }, timeoutMs);
  // The timer need not keep a process alive that has nothing else left to do (Node.js; a
  // runtime whose timers are numbers has no such method).
  timer.unref?.();
  return send(limited).then(
    (response) => whenRead(response, () => clearTimeout(timer)),
    (error: unknown) => {
      clearTimeout(timer);
      throw error;
    },
  );
}

/** Statuses whose answer has no body (a `Response` made with one throws). */
const bodiless = new Set([101, 103, 204, 205, 304]);

/**
 * `response`, with `done` called once its body has been read to the end: at once when it has
 * none, else as its last chunk passes. Unread, or cancelled, `done` is left to the time limit.
 */
function whenRead(response: Response, done: () => void): Response {
  if (
    response.body === null ||
    bodiless.has(response.status) ||
    response.headers.get('content-length') === '0'
  ) {
    done();
    return response;
  }
  return new Response(response.body.pipeThrough(new TransformStream({ flush: done })), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
