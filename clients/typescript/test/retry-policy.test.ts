import { backoffDelay, parseRetryAfter } from '@consent-service/client';
import { describe, expect, it } from 'vitest';

describe('Retry-After (RFC 9110 section 10.2.3)', () => {
  const now = Date.UTC(2015, 9, 21, 7, 27, 30);

  it.each([
    ['0', 0],
    ['1', 1000],
    ['120', 120_000],
    [' 7 ', 7000],
  ])('delay-seconds %j is %i ms', (value, ms) => {
    expect(parseRetryAfter(value, now)).toBe(ms);
  });

  it('an HTTP date is the time from now until then', () => {
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', now)).toBe(30_000);
  });

  it('an HTTP date already past is 0', () => {
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:27:00 GMT', now)).toBe(0);
  });

  it.each([['soon'], ['-1'], ['1.5'], [''], ['Wed, 99 Foo 2015']])('%j is unreadable', (value) => {
    expect(parseRetryAfter(value, now)).toBeUndefined();
  });

  it('no header is undefined', () => {
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});

describe('backoff with full jitter', () => {
  const policy = { baseDelayMs: 100, maxDelayMs: 1000 };

  it('is a random share of base * 2^retry', () => {
    const half = () => 0.5;
    expect([0, 1, 2, 3].map((retry) => backoffDelay(retry, policy, half))).toEqual([
      50, 100, 200, 400,
    ]);
  });

  it('never passes the longest wait', () => {
    expect(backoffDelay(10, policy, () => 0.999)).toBe(999);
    expect(backoffDelay(10, policy, () => 0)).toBe(0);
  });
});
