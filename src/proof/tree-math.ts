// Index arithmetic for trees of up to 2^53 - 1 leaves. JS bit operators work on 32-bit integers,
// so every step here is plain arithmetic, exact for safe integers (halving and powers of two are).

export function isTreeInteger(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

export function half(n: number): number {
  return Math.floor(n / 2);
}

export function isOdd(n: number): boolean {
  return n % 2 === 1;
}

/** Number of binary digits of n (0 for 0). */
export function bitLength(n: number): number {
  let bits = 0;
  for (let rest = n; rest > 0; rest = half(rest)) bits++;
  return bits;
}

export function isPowerOfTwo(n: number): boolean {
  return n > 0 && 2 ** (bitLength(n) - 1) === n;
}

/** The k of RFC 6962 section 2.1: the largest power of two smaller than n, for n > 1. */
export function largestPowerOfTwoBelow(n: number): number {
  return 2 ** (bitLength(n - 1) - 1);
}
