import { describe, expect, it } from 'vitest';
import { parseSubnets } from '../../src/platform/subnets.js';
import { checkUrl, refusalOf } from '../../src/webhooks/address-policy.js';

const strict = { allowHttpLoopback: false, allowedNetworks: [] };

describe('where webhooks may go', () => {
  it.each([
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.1.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['169.254.169.254', 'linkLocal'],
    ['224.0.0.1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['240.0.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['fe80::1', 'linkLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
  ])('refuses %s (%s) over https', (address, kind) => {
    expect(refusalOf(address, strict, 'https:')).toContain(kind);
  });

  it.each(['93.184.216.34', '2606:4700:4700::1111', '::ffff:93.184.216.34'])(
    'lets %s (public unicast) through over https',
    (address) => {
      expect(refusalOf(address, strict, 'https:')).toBeUndefined();
    },
  );

  it('lets a refused range through when the operator allows it, and no other', () => {
    const allowing = {
      allowHttpLoopback: false,
      allowedNetworks: parseSubnets('10.20.0.0/16, fd00::/8'),
    };
    expect(refusalOf('10.20.3.4', allowing, 'https:')).toBeUndefined();
    expect(refusalOf('fd12::1', allowing, 'https:')).toBeUndefined();
    // An IPv4-mapped IPv6 address is judged as the IPv4 address it carries.
    expect(refusalOf('::ffff:10.20.3.4', allowing, 'https:')).toBeUndefined();
    expect(refusalOf('10.21.3.4', allowing, 'https:')).toContain('private');
    expect(refusalOf('::ffff:10.21.3.4', allowing, 'https:')).toContain('private');
  });

  it('takes http to loopback only, and only when development allows it', () => {
    const dev = { allowHttpLoopback: true, allowedNetworks: [] };
    expect(refusalOf('127.0.0.1', dev, 'http:')).toBeUndefined();
    expect(refusalOf('93.184.216.34', dev, 'http:')).toContain('loopback');
    expect(refusalOf('127.0.0.1', strict, 'http:')).toContain('loopback');
  });

  it.each([
    ['http://10.0.0.1/hook', 'must be https://'],
    [
      'http://127.0.0.1:8080/hook',
      'must be https:// (http:// to a loopback address only with WEBHOOK_ALLOW_HTTP_LOOPBACK=true)',
    ],
    ['https://169.254.169.254/latest/meta-data', 'linkLocal'],
    ['https://[::ffff:127.0.0.1]/hook', 'loopback'],
    ['https://user:secret@example.com/hook', 'credentials'],
    ['ftp://example.com/hook', 'must be https://'],
    ['not a url', 'absolute URL'],
  ])('refuses to register %s (400 1001 naming url)', (url, issue) => {
    try {
      checkUrl(url, strict);
      expect.unreachable();
    } catch (error) {
      const { code, details } = error as {
        code: string;
        details: { field: string; issue: string }[];
      };
      expect(code).toBe('1001');
      expect(details[0]?.field).toBe('url');
      expect(details[0]?.issue).toContain(issue);
    }
  });

  it('registers an https host name (checked at each delivery) and http on loopback in development', () => {
    expect(checkUrl('https://hooks.example.com/in', strict).hostname).toBe('hooks.example.com');
    const dev = { allowHttpLoopback: true, allowedNetworks: [] };
    expect(checkUrl('http://127.0.0.1:8080/in', dev).port).toBe('8080');
    expect(() => checkUrl('http://10.0.0.1/in', dev)).toThrow();
    expect(() => checkUrl('http://example.com/in', dev)).toThrow();
  });
});
