/** The rate limit of the API key as an answer told it (`RateLimit-*` headers). */
export interface RateLimitInfo {
  /** Requests allowed per minute (`RateLimit-Limit`). */
  limit: number;
  /** Requests left in the current minute (`RateLimit-Remaining`). */
  remaining: number;
  /** Seconds until the minute ends and the count starts again (`RateLimit-Reset`). */
  resetSeconds: number;
}

/** What the answer behind a result said besides its body. */
export interface ResponseInfo {
  /** The HTTP status (`304` when `latest` was answered from the client's cache). */
  status: number;
  /** `X-Request-Id`: the service logs the request under it; quote it when asking about one. */
  requestId: string | undefined;
  /** The key's rate limit; `undefined` where none applies (health, no limit set). */
  rateLimit: RateLimitInfo | undefined;
}

/** A result of the client: the body's `data`, with what its answer said as `response`. */
export type WithResponse<T> = T & { readonly response: ResponseInfo };

/** What an answer's headers say besides its body. */
export function responseInfo(response: Response, status = response.status): ResponseInfo {
  const header = (name: string) => {
    const value = response.headers.get(name);
    return value !== null && /^\d+$/.test(value.trim()) ? Number(value) : undefined;
  };
  const limit = header('ratelimit-limit');
  const remaining = header('ratelimit-remaining');
  const resetSeconds = header('ratelimit-reset');
  return {
    status,
    requestId: response.headers.get('x-request-id') ?? undefined,
    rateLimit:
      limit !== undefined && remaining !== undefined && resetSeconds !== undefined
        ? { limit, remaining, resetSeconds }
        : undefined,
  };
}

/**
 * `data` with `response` added as a property that is not enumerable: the result compares,
 * spreads and serializes as the body's `data` alone (as before), and `result.response` (or
 * `responseOf(result)`) still tells the request id and the rate limit.
 */
export function withResponse<T extends object>(data: T, info: ResponseInfo): WithResponse<T> {
  Object.defineProperty(data, 'response', { value: info, enumerable: false, configurable: true });
  return data as WithResponse<T>;
}

/** What the answer behind a result of the client said: status, request id, rate limit. */
export function responseOf(result: object): ResponseInfo | undefined {
  return (result as { response?: ResponseInfo }).response;
}
