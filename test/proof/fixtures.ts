import { readFileSync } from 'node:fs';

// Test vectors live in test/fixtures/proof/*.json, each with a note of where it was copied from.

export function loadFixture<T>(name: string): T {
  const url = new URL(`../fixtures/proof/${name}`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')) as T;
}

export function hex(text: string): Uint8Array {
  return Uint8Array.from(Buffer.from(text, 'hex'));
}

export function b64(text: string): Uint8Array {
  return Uint8Array.from(Buffer.from(text, 'base64'));
}

export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

export function ascii(text: string): Uint8Array {
  return Uint8Array.from(Buffer.from(text, 'utf8'));
}

/** A copy of the bytes with one bit flipped. */
export function flipBit(bytes: Uint8Array, bit: number): Uint8Array {
  const copy = Uint8Array.from(bytes);
  copy[Math.floor(bit / 8)] = (copy[Math.floor(bit / 8)] as number) ^ (1 << (bit % 8));
  return copy;
}

/** The value of a proof function's result; the test fails with its reason otherwise. */
export function must<T>(result: { ok: true; value: T } | { ok: false; reason: string }): T {
  if (!result.ok) throw new Error(result.reason);
  return result.value;
}
