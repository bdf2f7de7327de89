/**
 * Counts failed key checks per client address in fixed one-minute windows, in this process.
 * An address past the budget is refused (429) without its key being checked until its window
 * ends, so keys cannot be guessed at speed and a flood of bad keys does not reach the store.
 */
export interface AuthThrottle {
  /** Seconds until the address may try again, or 0 when it may try now. */
  blockedFor(address: string, now?: number): number;
  recordFailure(address: string, now?: number): void;
}

const windowMs = 60_000;
/** Past this many tracked addresses, windows that ended are swept on the next failure. */
const sweepAbove = 10_000;

export function createAuthThrottle(failuresPerMinute: number): AuthThrottle {
  const windows = new Map<string, { failures: number; endsAt: number }>();
  return {
    blockedFor(address, now = Date.now()) {
      if (failuresPerMinute === 0) return 0;
      const window = windows.get(address);
      if (!window || window.endsAt <= now || window.failures < failuresPerMinute) return 0;
      return Math.max(1, Math.ceil((window.endsAt - now) / 1000));
    },
    recordFailure(address, now = Date.now()) {
      if (failuresPerMinute === 0) return;
      if (windows.size > sweepAbove) {
        for (const [key, window] of windows) if (window.endsAt <= now) windows.delete(key);
      }
      const window = windows.get(address);
      if (!window || window.endsAt <= now) {
        windows.set(address, { failures: 1, endsAt: now + windowMs });
      } else {
        window.failures += 1;
      }
    },
  };
}
