import { createHash } from 'node:crypto';

// Byte and text helpers shared by the proof formats. Internal, but for `decodeBase64` (strict,
// canonical base64), which index.ts gives the monitor as a check of its own.

export function sha256(...parts: readonly Uint8Array[]): Uint8Array {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  // A plain Uint8Array, not a Buffer, so callers and tests compare like with like.
  return Uint8Array.from(hash.digest());
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function utf8(text: string): Uint8Array {
  return Uint8Array.from(Buffer.from(text, 'utf8'));
}

export function encodeBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Standard base64 (RFC 4648 section 4), padded and canonical. Buffer.from(text, 'base64') skips
 * bad characters and ignores non-zero padding bits, so two different signature lines could decode
 * to the same bytes; the formats here must reject every altered byte, hence the re-encoding check.
 */
export function decodeBase64(text: string): Uint8Array | undefined {
  if (!BASE64.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64');
  if (bytes.toString('base64') !== text) return undefined;
  return Uint8Array.from(bytes);
}

const DECIMAL = /^(?:0|[1-9][0-9]*)$/;

/** ASCII decimal without leading zeros, as tlog-checkpoint and tlog-proof require. */
export function parseDecimal(text: string): number | undefined {
  if (!DECIMAL.test(text)) return undefined;
  const value = Number(text);
  // Sizes and indices above 2^53 - 1 would lose precision as a JS number.
  return Number.isSafeInteger(value) ? value : undefined;
}

/**
 * Signed notes must be well-formed text without ASCII control characters other than newline.
 * Checked by code point rather than a regex with control characters in it.
 */
export function isNoteSafeText(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 && code !== 0x0a) return false;
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return false;
      i++;
    } else if (code >= 0xdc00 && code <= 0xdfff) {
      return false;
    }
  }
  return true;
}
