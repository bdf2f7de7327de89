import { describe, expect, it } from 'vitest';
import { retryDelayMs } from '../../src/webhooks/backoff.js';

describe('the wait before a webhook is tried again', () => {
  it('grows 5 s, 30 s, 2 min, 10 min, 30 min, then hourly at the default base (jitter at its middle)', () => {
    const middle = () => 0.5;
    const waits = [1, 2, 3, 4, 5, 6, 7, 20].map((failures) =>
      retryDelayMs(failures, 5_000, middle),
    );
    expect(waits).toEqual([
      5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 3_600_000, 3_600_000,
    ]);
  });

  it('stays within ±20 % at either end of the jitter', () => {
    expect(retryDelayMs(2, 5_000, () => 0)).toBe(24_000);
    expect(retryDelayMs(2, 5_000, () => 0.999999)).toBe(36_000);
  });

  it('scales with the base, so tests can shorten it', () => {
    expect(retryDelayMs(3, 20, () => 0.5)).toBe(480);
  });
});
