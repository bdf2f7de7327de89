import { sql } from 'kysely';
import { isPostgres, type Trx } from './db.js';

/**
 * Serializes the transactions that name the same key until they commit, across every instance.
 * The rules that read before they write (withdraw, re-consent, idempotency, version numbering)
 * take one first.
 *
 * - PostgreSQL: a transaction-scoped advisory lock on a 64-bit hash of the key; a hash collision
 *   only makes two unrelated writers wait for each other.
 * - SQLite: nothing to do; `BEGIN IMMEDIATE` already makes every writing transaction exclusive.
 */
export async function lockKey(trx: Trx, key: string): Promise<void> {
  if (!isPostgres(trx)) return;
  await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(trx);
}

/**
 * `lockKey` for many keys in one statement (a batch of decisions), taken in ascending order of
 * their hashes: two holders of several keys each never wait for each other in a cycle. Every
 * other holder holds one key at a time.
 */
export async function lockKeys(trx: Trx, keys: readonly string[]): Promise<void> {
  if (!isPostgres(trx) || keys.length === 0) return;
  // The subquery's order is the order the aggregate sees its rows in, so the locks' order.
  await sql`select count(pg_advisory_xact_lock(h)) from (
      select distinct hashtextextended(k, 0) as h from unnest(${keys}::text[]) as k order by h
    ) as ordered`.execute(trx);
}

/**
 * Takes the key's lock when it is free, else answers false at once: for work any instance may do
 * but only one at a time (SQLite: always true, `BEGIN IMMEDIATE` serializes the writers).
 */
export async function tryLockKey(trx: Trx, key: string): Promise<boolean> {
  if (!isPostgres(trx)) return true;
  const result = await sql<{
    locked: boolean;
  }>`select pg_try_advisory_xact_lock(hashtextextended(${key}, 0)) as locked`.execute(trx);
  return result.rows[0]?.locked === true;
}
