import type { Db } from '../platform/db.js';
import { lockKey } from '../platform/locks.js';
import {
  deleteThrottle,
  deleteThrottlesUntouchedSince,
  findThrottle,
  saveThrottle,
  throttleBlocks,
} from './sign-in-repository.js';

/**
 * Slows down password guessing on the back-office, across every instance (the counters are in
 * the store). Failed sign-ins are counted per account (`account:<e-mail>`) and per client address
 * (`address:<ip>`); a count is forgotten 15 minutes after its last failure. From the limit on,
 * each failure closes that account or address for 30 seconds, doubling with every further
 * failure up to 15 minutes; while closed, sign-ins are refused without the password being tried.
 * A successful sign-in clears the account's count (not the address's: an address guessing at
 * many accounts would otherwise clear its own count with an account of its own).
 */
export interface ThrottleLimits {
  perAccount: number;
  perAddress: number;
}

const forgetAfterMs = 15 * 60_000;
const firstDelayMs = 30_000;
const longestDelayMs = 15 * 60_000;

export function throttleKeys(email: string, ip: string, limits: ThrottleLimits) {
  return [
    { key: `account:${email.toLowerCase()}`, limit: limits.perAccount },
    { key: `address:${ip}`, limit: limits.perAddress },
  ].filter((k) => k.limit > 0);
}

/** Seconds until a sign-in may be tried for these keys (0: now). */
export async function secondsUntilAllowed(
  db: Db,
  keys: ReadonlyArray<{ key: string }>,
  now = new Date(),
): Promise<number> {
  if (keys.length === 0) return 0;
  const rows = await throttleBlocks(
    db,
    keys.map((k) => k.key),
  );
  let until = now.getTime();
  for (const row of rows) {
    if (row.blocked_until) until = Math.max(until, Date.parse(row.blocked_until));
  }
  return Math.ceil((until - now.getTime()) / 1000);
}

/** Counts a failed sign-in against each key, closing those at or past their limit. */
export async function recordFailure(
  db: Db,
  keys: ReadonlyArray<{ key: string; limit: number }>,
  now = new Date(),
): Promise<void> {
  const nowIso = now.toISOString();
  await db.transaction().execute(async (trx) => {
    for (const { key, limit } of keys) {
      await lockKey(trx, `sign-in:${key}`);
      const row = await findThrottle(trx, key);
      const fresh = row && now.getTime() - Date.parse(row.updated_at) < forgetAfterMs;
      const failures = fresh ? row.failures + 1 : 1;
      const delay =
        failures >= limit
          ? Math.min(firstDelayMs * 2 ** Math.min(failures - limit, 20), longestDelayMs)
          : 0;
      const values = {
        failures,
        window_started_at: fresh ? row.window_started_at : nowIso,
        blocked_until: delay > 0 ? new Date(now.getTime() + delay).toISOString() : null,
        updated_at: nowIso,
      };
      await saveThrottle(trx, key, values, row !== undefined);
    }
    // Counts nobody has added to for a day are only clutter.
    await deleteThrottlesUntouchedSince(trx, new Date(now.getTime() - 86_400_000).toISOString());
  });
}

export async function clearFailures(db: Db, key: string): Promise<void> {
  await deleteThrottle(db, key);
}
