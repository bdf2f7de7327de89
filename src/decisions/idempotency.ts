import type { Executor } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { answerOf, type DecisionAnswer } from './answer.js';
import type { DecisionJob, DecisionOutcome } from './record-decisions.js';
import { deleteIdempotencyRecordsBefore } from './repository.js';
import type { IdempotencyKeysTable } from './table.js';

/** How long an `Idempotency-Key` replays its first answer. */
const idempotencyWindowMs = 24 * 60 * 60 * 1000;

/** The first answer, as an idempotency key keeps it. */
export type StoredAnswer = Pick<DecisionAnswer, 'status' | 'body'>;

/**
 * The first answer an idempotency key replays, if its record is within the window; the same key
 * with another customer or body is `422`.
 */
export function replayOf(
  job: Pick<DecisionJob, 'customer' | 'requestHash'>,
  previous:
    | Pick<
        IdempotencyKeysTable,
        'customer_lookup' | 'request_hash' | 'status_code' | 'response_body' | 'created_at'
      >
    | undefined,
): StoredAnswer | undefined {
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
    body: JSON.parse(previous.response_body) as StoredAnswer['body'],
  };
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
