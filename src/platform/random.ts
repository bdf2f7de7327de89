import { randomFillSync } from 'node:crypto';

/** Random bytes drawn at once; a decision takes about 90 of them. */
const poolBytes = 4096;
const pool = Buffer.allocUnsafe(poolBytes);
let offset = poolBytes;

/**
 * `size` bytes from the operating system's CSPRNG, as `crypto.randomBytes` gives them, but drawn
 * from a pool refilled 4 KiB at a time: each call to the CSPRNG costs a few microseconds whatever
 * its size, and a decision needs five small draws (its customer's key, two nonces, two salts).
 * Every byte is handed out once and copied out of the pool. Node's own `randomUUID` keeps such a
 * cache too.
 */
export function randomBytesPooled(size: number): Buffer {
  if (size > poolBytes) throw new RangeError(`at most ${poolBytes} bytes at a time`);
  if (offset + size > poolBytes) {
    randomFillSync(pool);
    offset = 0;
  }
  const bytes = Buffer.allocUnsafe(size);
  pool.copy(bytes, 0, offset, offset + size);
  // The bytes handed out do not stay behind in the pool.
  pool.fill(0, offset, offset + size);
  offset += size;
  return bytes;
}
