/**
 * The wait before the next attempt after `failures` failed ones in a row, as multiples of the
 * base (5 s by default: 5 s, 30 s, 2 min, 10 min, 30 min, then every hour), each within ±20 %
 * at random so that endpoints failing together do not retry together.
 */
const steps = [1, 6, 24, 120, 360, 720];

export function retryDelayMs(failures: number, baseMs: number, random = Math.random): number {
  const step = steps[Math.min(Math.max(failures, 1), steps.length) - 1] ?? 1;
  const jitter = 0.8 + 0.4 * random();
  return Math.round(step * baseMs * jitter);
}
