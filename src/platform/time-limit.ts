/** A signal for work that must end within a time, and the way to end the limit early. */
export interface TimeLimit {
  /**
   * Aborts when the time has passed, with a `TimeoutError` as `AbortSignal.timeout()`'s, or when
   * the `stop` signal given aborts, with its reason.
   */
  signal: AbortSignal;
  /** Ends the limit: the work is done (its answer read to the end). */
  clear(): void;
}

/**
 * A time limit of `ms` for an outgoing request, ended early by `stop` (the service stopping).
 *
 * It is a timer of its own aborting a controller of its own, not `AbortSignal.any()` over
 * `AbortSignal.timeout()`: on Node.js 20 the combined signal holds its sources weakly and the
 * timeout's timer holds its signal weakly, so a garbage collection while the request waits loses
 * the timeout, and a receiver that never answers holds the request for ever. Here the timer holds
 * the controller, and the caller's `clear()` lets both go.
 */
export function timeLimit(ms: number, stop?: AbortSignal): TimeLimit {
  const limit = new AbortController();
  const onStop = () => limit.abort(stop?.reason);
  const timer = setTimeout(() => {
    limit.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
  }, ms);
  // As AbortSignal.timeout()'s: a limit alone does not keep the process alive.
  timer.unref();
  if (stop?.aborted) onStop();
  else stop?.addEventListener('abort', onStop, { once: true });
  return {
    signal: limit.signal,
    clear() {
      clearTimeout(timer);
      stop?.removeEventListener('abort', onStop);
    },
  };
}
