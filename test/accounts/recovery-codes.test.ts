import { describe, expect, it } from 'vitest';
import { newRecoveryCodes, recoveryCodeHash } from '../../src/accounts/recovery-codes.js';

// `printf ABCDEFGHJK | sha256sum`
const abcdefghjkSha256 = 'f57cbf1e3e471b25db4b8ad0844df41b2dae9c7d1944944d128e49294d412f66';

// Ten symbols from 2-9 and the capitals without I, L and O, as five, a dash, five (any case).
const shownFormat = /^[2-9a-hjkmnp-z]{5}-[2-9a-hjkmnp-z]{5}$/i;

describe('recovery code hashes', () => {
  it('hash the code in capitals without its dash (SHA-256 hex)', () => {
    expect(recoveryCodeHash('abcde-fghjk')).toBe(abcdefghjkSha256);
  });

  it('give one hash for every spelling that differs in case, spaces or dashes', () => {
    for (const spelling of [
      'ABCDEFGHJK',
      'abcde fghjk',
      'ABCDE-FGHJK',
      ' aBcDe - FgHjK ',
      'ab-cd-ef-gh-jk',
    ]) {
      expect(recoveryCodeHash(spelling)).toBe(abcdefghjkSha256);
    }
  });

  it('are undefined for what cannot be a code', () => {
    for (const input of [
      '',
      'abc',
      'abcde-fghj', // nine symbols
      'abcde-fghjkm', // eleven
      'abcde-fghj0', // 0 is left out of the alphabet
      'abcde-fghjo',
      'abcde-fghj1',
      'abcde-fghji',
      'abcde-fghjl',
      'abcde_fghjk',
      'abcde-fghjſ', // long s, which toUpperCase() turns into S
      'abcde-fghß', // sharp s, which toUpperCase() turns into SS
    ]) {
      expect(recoveryCodeHash(input)).toBeUndefined();
    }
  });
});

describe('new recovery codes', () => {
  it('are ten by default, distinct, in the shown format, each with the hash of its own text', () => {
    const { codes, hashes } = newRecoveryCodes();
    expect(codes).toHaveLength(10);
    expect(hashes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const [i, code] of codes.entries()) {
      expect(code).toMatch(shownFormat);
      expect(hashes[i]).toMatch(/^[0-9a-f]{64}$/);
      expect(recoveryCodeHash(code)).toBe(hashes[i]);
    }
    expect(new Set(hashes).size).toBe(10);
  });

  it('come in the number asked for', () => {
    const { codes, hashes } = newRecoveryCodes(3);
    expect(codes).toHaveLength(3);
    expect(hashes).toHaveLength(3);
  });

  it('refuse a count that is not a positive whole number', () => {
    for (const count of [0, -1, 2.5, Number.NaN]) {
      expect(() => newRecoveryCodes(count)).toThrow(RangeError);
    }
  });
});
