import { randomBytes } from 'node:crypto';

/**
 * Key format: `csk_` + 12 hex characters (the visible prefix that finds the row) + `_` +
 * 43 base64url characters (256 random bits). Long random keys need no slow KDF: a SHA-256 of the
 * whole key is stored, and compared in constant time.
 */
const prefixLength = 'csk_'.length + 12;

export function generateKey(): { key: string; prefix: string } {
  const prefix = `csk_${randomBytes(6).toString('hex')}`;
  return { prefix, key: `${prefix}_${randomBytes(32).toString('base64url')}` };
}

/** The prefix of a presented key, or undefined when it cannot be one of ours. */
export function prefixOf(key: string): string | undefined {
  return /^csk_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/.test(key) ? key.slice(0, prefixLength) : undefined;
}
