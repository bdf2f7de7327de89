import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  customerLookup,
  newSubjectKey,
  openFields,
  sealFields,
  unwrapSubjectKey,
  wrapSubjectKey,
} from '../../src/subjects/crypto.js';

const dataKey = randomBytes(32);

describe('the cryptography of customer erasure', () => {
  it('a customer is found by a keyed hash: the same id gives the same hash, another tenant or data key another', () => {
    const hash = customerLookup(dataKey, 'tenant-a', 'alice@example.com');
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(customerLookup(dataKey, 'tenant-a', 'alice@example.com')).toBe(hash);
    expect(customerLookup(dataKey, 'tenant-b', 'alice@example.com')).not.toBe(hash);
    expect(customerLookup(randomBytes(32), 'tenant-a', 'alice@example.com')).not.toBe(hash);
    expect(customerLookup(dataKey, 'tenant-a', 'Alice@example.com')).not.toBe(hash);
    expect(hash).not.toContain(Buffer.from('alice').toString('hex'));
  });

  it('a customer key sealed under the data key opens only for its tenant and subject', () => {
    const key = newSubjectKey();
    const wrapped = wrapSubjectKey(dataKey, 'tenant-a', 'subject-1', key);
    expect(unwrapSubjectKey(dataKey, 'tenant-a', 'subject-1', wrapped)).toEqual(key);
    expect(() => unwrapSubjectKey(dataKey, 'tenant-b', 'subject-1', wrapped)).toThrow();
    expect(() => unwrapSubjectKey(dataKey, 'tenant-a', 'subject-2', wrapped)).toThrow();
    expect(() => unwrapSubjectKey(randomBytes(32), 'tenant-a', 'subject-1', wrapped)).toThrow();
  });

  it('personal fields open with their key and record id, and never with another', () => {
    const key = newSubjectKey();
    const fields = { customer_id: 'alice@example.com', ip: '203.0.113.7', user_agent: null };
    const sealed = sealFields(key, 'record-1', fields);
    expect(openFields(key, 'record-1', sealed)).toEqual(fields);
    expect(sealed).not.toContain('alice');
    expect(Buffer.from(sealed, 'base64').toString('latin1')).not.toContain('alice');
    // Sealed twice, the same fields read differently (a fresh nonce each time).
    expect(sealFields(key, 'record-1', fields)).not.toBe(sealed);
    expect(() => openFields(key, 'record-2', sealed)).toThrow();
    expect(() => openFields(newSubjectKey(), 'record-1', sealed)).toThrow();
    expect(() => openFields(key, 'record-1', 'AAAA')).toThrow();
  });

  it('every single-bit change to sealed fields is refused', () => {
    const key = newSubjectKey();
    const sealed = Buffer.from(sealFields(key, 'record-1', { ip: '192.0.2.1' }), 'base64');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: sealed.length * 8 - 1 }), (bit) => {
        const changed = Buffer.from(sealed);
        changed[Math.floor(bit / 8)] = (changed[Math.floor(bit / 8)] ?? 0) ^ (1 << (bit % 8));
        expect(() => openFields(key, 'record-1', changed.toString('base64'))).toThrow();
      }),
      { seed: 27560, numRuns: 200 },
    );
  });
});
