import type { Executor, Trx } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { answerOf, type DecisionAnswer } from './answer.js';
import type { DecisionJob, DecisionOutcome } from './record-decisions.js';
import {
  deleteIdempotencyRecordsBefore,
  findIdempotencyRecordRows,
  saveIdempotencyRecords,
} from './repository.js';
import type { IdempotencyKeysTable } from './table.js';

/** How long an `Idempotency-Key` replays its first answer. */
const idempotencyWindowMs = 24 * 60 * 60 * 1000;

/** The first answer, as an idempotency key keeps it. */
export type StoredAnswer<Body = DecisionAnswer['body']> = { status: number; body: Body };

/** What an idempotency key is checked against: the customer and the request's hash. */
export interface KeyedRequest {
  customer: { lookup: string };
  requestHash: string;
}

/**
 * The first answer an idempotency key replays, if its record is within the window; the same key
 * with another customer or request is `422`. Decisions and channel changes share the keys of a
 * tenant: a key first used for one and reused for the other differs by its request hash.
 */
export function replayOf<Body = DecisionAnswer['body']>(
  job: KeyedRequest,
  previous:
    | Pick<
        IdempotencyKeysTable,
        'customer_lookup' | 'request_hash' | 'status_code' | 'response_body' | 'created_at'
      >
    | undefined,
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
  trx: Trx,
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

/**
 * What an `Idempotency-Key` keeps of a decision: the answer the API gives it (a rule's refusal
 * included), stored in the decision's own transaction. None without a key.
 */
export function idempotencyRecordOf(
  job: DecisionJob,
  outcome: DecisionOutcome,
  now: string,
): IdempotencyKeysTable | undefined {
  if (job.idempotencyKey === undefined) return undefined;
  const answer = answerOf(outcome);
  return {
    tenant_id: job.context.tenantId,
    key: job.idempotencyKey,
    customer_lookup: job.customer.lookup,
    request_hash: job.requestHash,
    status_code: answer.status,
    response_body: JSON.stringify(answer.body),
    created_at: now,
  };
}

/** Drops idempotency records past their window; answers how many went. */
export function purgeExpiredIdempotencyRecords(db: Executor): Promise<number> {
  const cutoff = new Date(Date.now() - idempotencyWindowMs).toISOString();
  return deleteIdempotencyRecordsBefore(db, cutoff);
}
