import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';

// scrypt with r=8, p=1 and N=2^cost: OWASP's floor is N=2^17 (the default of
// PASSWORD_HASH_COST), which takes 128 MiB per hash. The parameters travel with each hash, so a
// hash made at one cost still verifies when the setting changes.
const blockSize = 8;
const parallelism = 1;
const keyLength = 32;

/** What scrypt needs for N and r (128·N·r bytes), with room to spare. */
function memoryFor(n: number, r: number): number {
  return 2 * 128 * n * r;
}

/** The most memory a stored hash may ask for: that of the setting's maximum, N=2^20, r=8. */
const largestMemory = memoryFor(2 ** 20, blockSize);

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, keyLength, options, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/**
 * `scrypt$N$r$p$salt$hash`, base64url parts: the parameters travel with the hash. `cost` is
 * log2 of N (`Config.passwordHashCost`).
 */
export async function hashPassword(password: string, cost: number): Promise<string> {
  const n = 2 ** cost;
  const salt = randomBytes(16);
  const options = { N: n, r: blockSize, p: parallelism, maxmem: memoryFor(n, blockSize) };
  const key = await derive(password, salt, options);
  return [
    'scrypt',
    n,
    blockSize,
    parallelism,
    salt.toString('base64url'),
    key.toString('base64url'),
  ].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  const maxmem = memoryFor(params.N, params.r);
  if (!(maxmem <= largestMemory)) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), { ...params, maxmem });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
