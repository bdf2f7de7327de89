import { randomInt } from 'node:crypto';
import { sha256Hex } from '../platform/hashing.js';

/**
 * One-time recovery codes, for signing in when the authenticator is lost. Shown once as
 * `xxxxx-xxxxx`, stored only as hashes.
 *
 * The alphabet leaves out 0, O, 1, I and L, which read alike on paper and screens: 31 symbols,
 * so 10 of them carry about 49.5 bits. Because every code is that random, a fast hash is enough:
 * a slow password hash guards against guessing likely inputs from a stolen table, and here there
 * are no likely inputs, only 2^49.5 equally likely ones per code. Guesses made online are for a
 * throttle to slow, as for passwords.
 */
const alphabet = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const codeLength = 10;
// Case-insensitive without the `u` flag: only ASCII letters fold, so `ß` or `ſ` cannot pass for
// a code's letters the way `toUpperCase()` alone would let them.
const wellFormed = new RegExp(`^[${alphabet}]{${codeLength}}$`, 'i');

/** `count` fresh codes to show the user, and their hashes (same order) to store. */
export function newRecoveryCodes(count = 10): { codes: string[]; hashes: string[] } {
  if (!Number.isInteger(count) || count < 1) {
    throw new RangeError(`bad recovery code count: ${count}`);
  }
  const codes: string[] = [];
  const hashes: string[] = [];
  while (codes.length < count) {
    let raw = '';
    for (let i = 0; i < codeLength; i++) raw += alphabet[randomInt(alphabet.length)];
    const hash = sha256Hex(raw);
    // A repeat (odds about count^2 / 2^50) would make one code count twice; draw again.
    if (hashes.includes(hash)) continue;
    codes.push(`${raw.slice(0, 5)}-${raw.slice(5)}`.toLowerCase());
    hashes.push(hash);
  }
  return { codes, hashes };
}

/**
 * The hash to look a typed code up by: hex SHA-256 of the code in capitals without spaces or
 * dashes, so `ABCDE-FGHJK`, `abcde fghjk` and `abcdefghjk` are one code. Undefined for anything
 * that cannot be a code (wrong length, a left-out or foreign character), so it costs no look-up.
 */
export function recoveryCodeHash(input: string): string | undefined {
  const compact = input.replace(/[\s-]/g, '');
  return wellFormed.test(compact) ? sha256Hex(compact.toUpperCase()) : undefined;
}
