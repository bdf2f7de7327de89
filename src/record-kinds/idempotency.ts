/**
 * `Idempotency-Key`s, shared by every kind of record whose requests take one (decisions, channel
 * changes, partner blocks): a tenant's key answers, within its window, the first request's
 * answer; the same key with another customer or request is `422`. The recorder checks and keeps
 * them in the writer's transaction (`recorder.ts`).
 */
import type { Executor, Trx } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import {
  deleteIdempotencyRecordsBefore,
  deleteSubjectIdempotencyRecords,
  findIdempotencyRecordRows,
  saveIdempotencyRecords,
} from './idempotency-repository.js';
import type { StoredAnswer, StoredKey } from './kind.js';
import type { IdempotencyKeysTable } from './table.js';

/** An `Idempotency-Key` as a request may send it: 1 to 255 printable ASCII characters. */
export const idempotencyKeyPattern = '^[\\x20-\\x7E]{1,255}$';

/** How long an `Idempotency-Key` replays its first answer. */
const idempotencyWindowMs = 24 * 60 * 60 * 1000;

/** What an idempotency key is checked against: the customer and the request's hash. */
export interface KeyedRequest {
  customer: { lookup: string };
  requestHash: string;
}

/**
 * The first answer an idempotency key replays, if its record is within the window; the same key
 * with another customer or request is `422`. The kinds share the keys of a tenant: a key first
 * used for one and reused for another differs by its request hash.
 */
export function replayOf<Body = unknown>(
  job: KeyedRequest,
  previous: StoredKey | undefined,
): StoredAnswer<Body> | undefined {
  const windowStart = new Date(Date.now() - idempotencyWindowMs).toISOString();
  if (!previous || previous.created_at < windowStart) return undefined;
  if (
    previous.customer_lookup !== job.customer.lookup ||
    previous.request_hash !== job.requestHash
  ) {
    throw new AppError('idempotencyMismatch');
  }
  return {
    status: previous.status_code,
    body: JSON.parse(previous.response_body) as Body,
  };
}

/**
 * The lock a keyed request takes in the writer's transaction: the same key at the same moment,
 * the second waits, then sees the first's record.
 */
export function idempotencyLockName(tenantId: string, key: string): string {
  return `idempotency:${tenantId}:${key}`;
}

/** The stored records of some keys (each by tenant and key), for `replayOf`. */
export function findIdempotencyRecords(
  trx: Executor,
  keys: readonly { tenant_id: string; key: string }[],
): Promise<IdempotencyKeysTable[]> {
  return findIdempotencyRecordRows(trx, keys);
}

/** Keeps the answers of a batch's keys (one per key, the latest), in the batch's transaction. */
export function keepIdempotencyRecords(
  trx: Trx,
  records: readonly IdempotencyKeysTable[],
): Promise<void> {
  return saveIdempotencyRecords(trx, records);
}

/** Drops idempotency records past their window; answers how many went. */
export function purgeExpiredIdempotencyRecords(db: Executor): Promise<number> {
  const cutoff = new Date(Date.now() - idempotencyWindowMs).toISOString();
  return deleteIdempotencyRecordsBefore(db, cutoff);
}

/** A subject's keys' records (kept by their look-up), dropped with their erasure. */
export function forgetSubjectKeys(trx: Trx, tenantId: string, lookup: string): Promise<void> {
  return deleteSubjectIdempotencyRecords(trx, tenantId, lookup);
}
