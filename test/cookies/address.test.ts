/** How a cookie choice keeps the visitor's address when the tenant keeps it truncated. */
import { describe, expect, it } from 'vitest';
import { truncatedAddress } from '../../src/cookies/public.js';

describe('a truncated address', () => {
  it.each([
    ['192.0.2.77', '192.0.2.0'],
    ['::ffff:198.51.100.23', '198.51.100.0'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1::'],
    ['2001:db8::1', '2001:db8::'],
    ['::1', '::'],
    ['not an address', 'not an address'],
  ])('keeps %s as %s (an IPv4 /24, an IPv6 /48)', (ip, kept) => {
    expect(truncatedAddress(ip)).toBe(kept);
  });
});
