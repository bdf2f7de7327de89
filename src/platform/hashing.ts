import { createHash, timingSafeEqual } from 'node:crypto';

/** Hex SHA-256 of a text (as UTF-8) or of bytes. */
export function sha256Hex(input: string | Buffer): string {
  const hash = createHash('sha256');
  return (typeof input === 'string' ? hash.update(input, 'utf8') : hash.update(input)).digest(
    'hex',
  );
}

/** Compares two hex digests in constant time (a length mismatch is simply false). */
export function digestsEqual(aHex: string, bHex: string): boolean {
  const a = Buffer.from(aHex, 'hex');
  const b = Buffer.from(bHex, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
