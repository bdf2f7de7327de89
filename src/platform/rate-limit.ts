import { AppError } from './errors.js';

/**
 * Counts requests per API key in fixed one-minute windows, in this process, and tells the
 * caller where it stands with the IETF `RateLimit-Limit`, `-Remaining` and `-Reset` headers.
 * Synchronous, so the hook that calls it finishes without a promise or a microtask turn.
 */
export type RateLimit = (
  key: string,
  reply: { header(name: string, value: string): unknown },
  now?: number,
) => AppError | undefined;

const windowMs = 60_000;

/** The limit for `perMinute` requests per key, or undefined when `perMinute` is 0 (no limit). */
export function createRateLimit(perMinute: number): RateLimit | undefined {
  if (perMinute <= 0) return undefined;
  const limit = String(perMinute);
  const windows = new Map<string, { count: number; endsAt: number }>();
  let sweepAt = 0;
  return (key, reply, now = Date.now()) => {
    // Keys are API keys that passed the check, so the map stays small; once a minute, windows
    // that ended are dropped.
    if (now >= sweepAt) {
      for (const [name, window] of windows) if (window.endsAt <= now) windows.delete(name);
      sweepAt = now + windowMs;
    }
    let window = windows.get(key);
    if (!window || window.endsAt <= now) {
      window = { count: 0, endsAt: now + windowMs };
      windows.set(key, window);
    }
    window.count += 1;
    const reset = String(Math.max(1, Math.ceil((window.endsAt - now) / 1000)));
    reply.header('ratelimit-limit', limit);
    reply.header('ratelimit-remaining', String(Math.max(0, perMinute - window.count)));
    reply.header('ratelimit-reset', reset);
    if (window.count <= perMinute) return undefined;
    return new AppError('tooManyRequests', { headers: { 'retry-after': reset } });
  };
}
