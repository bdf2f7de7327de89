import { describe, expect, it } from 'vitest';
import { time } from '../../src/backoffice/web/format.js';

describe('times as the back-office shows them', () => {
  it('in UTC, as stored, to the second', () => {
    expect(time('2026-01-02T03:04:05.123Z').text).toBe(
      '<time datetime="2026-01-02T03:04:05.123Z"><span class="nowrap">2026-01-02</span> <span class="nowrap">03:04:05 UTC</span></time>',
    );
  });

  it("in the tenant's zone, with the offset of that moment, the exact instant kept", () => {
    expect(time('2026-01-02T20:04:05.000Z', 'Asia/Bangkok').text).toBe(
      '<time datetime="2026-01-02T20:04:05.000Z"><span class="nowrap">2026-01-03</span> <span class="nowrap">03:04:05 GMT+7</span></time>',
    );
    // New York moves its clocks forward at 2:00 on 8 March 2026.
    expect(time('2026-03-08T06:59:59.000Z', 'America/New_York').text).toContain(
      '2026-03-08</span> <span class="nowrap">01:59:59 GMT-5',
    );
    expect(time('2026-03-08T07:00:00.000Z', 'America/New_York').text).toContain(
      '2026-03-08</span> <span class="nowrap">03:00:00 GMT-4',
    );
    expect(time('2026-06-01T12:00:00.000Z', 'Asia/Kolkata').text).toContain('17:30:00 GMT+5:30');
  });

  it('nothing to show is a dash', () => {
    expect(time(null, 'Asia/Bangkok').text).toBe('<span class="muted">—</span>');
  });
});
