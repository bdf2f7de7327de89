import stringify from 'safe-stable-stringify';
import type { Db, Trx } from '../platform/db.js';
import { AppError, type ErrorBody, errorBody } from '../platform/errors.js';
import { sha256Hex } from '../platform/hashing.js';
import { lockKey } from '../platform/locks.js';
import { nowIso } from '../platform/time.js';
import type { SubjectVault } from '../subjects/vault.js';
import type { Catalog } from '../templates/catalog.js';
import {
  deleteIdempotencyRecordsBefore,
  findIdempotencyRecord,
  saveIdempotencyRecord,
} from './repository.js';
import type { DecisionRequest, RecordedDecision } from './schemas.js';
import {
  type AskedDecision,
  type DecisionContext,
  type DecisionOutcome,
  DecisionRefused,
  decisionVersion,
  recordDecision,
} from './service.js';
import type { IdempotencyKeysTable } from './table.js';

/** How long an `Idempotency-Key` replays its first answer. */
const idempotencyWindowMs = 24 * 60 * 60 * 1000;

/** The HTTP answer to a decision: what is sent, and what an idempotency key replays. */
export interface DecisionAnswer {
  status: number;
  body: { data: RecordedDecision } | ErrorBody;
  /** True when an idempotency key answered a stored response. */
  replayed: boolean;
}

/**
 * A decision as the writer takes it: everything read and computed on the request's side, so
 * that it can cross to the SQLite writer thread as plain data.
 */
export interface DecisionJob extends AskedDecision {
  requestHash: string;
}

/** Writes decisions durably: the SQLite writer thread, or a transaction each (`writer.ts`). */
export interface DecisionWriter {
  write(job: DecisionJob): Promise<DecisionAnswer>;
}

/**
 * Answers a decision request. With an `Idempotency-Key`, the answer (a rule refusal included) is
 * stored in the decision's own transaction, and a retry within the window gets it back byte for
 * byte; the same key with another customer or body is `422`.
 */
export async function answerDecision(
  writer: DecisionWriter,
  versions: Pick<Catalog, 'publishedById'>,
  vault: SubjectVault,
  context: DecisionContext,
  customerId: string,
  request: DecisionRequest,
  idempotencyKey?: string,
): Promise<DecisionAnswer> {
  // A published version never changes: it is read before, and outside, the transaction.
  const version = await decisionVersion(versions, context.tenantId, request.consent_version_id);
  // The store knows the customer only by this keyed hash and a random id (src/subjects).
  const lookup = vault.lookup(context.tenantId, customerId);
  return writer.write({
    version,
    context,
    customer: { id: customerId, lookup },
    request,
    requestHash: sha256Hex(stringify(request) ?? ''),
    idempotencyKey,
  });
}

/** The writing half of `answerDecision`, in the writer's transaction. */
export async function writeDecision(
  trx: Trx,
  vault: SubjectVault,
  job: DecisionJob,
): Promise<DecisionAnswer> {
  const { context, idempotencyKey } = job;
  if (idempotencyKey !== undefined) {
    // Same key at the same moment: the second waits here, then sees the first's record.
    await lockKey(trx, `idempotency:${context.tenantId}:${idempotencyKey}`);
    const replay = replayOf(
      job,
      await findIdempotencyRecord(trx, context.tenantId, idempotencyKey),
    );
    if (replay) return replay;
  }
  let answer: DecisionAnswer;
  try {
    answer = answerOf(await recordDecision(trx, vault, job));
  } catch (error) {
    if (!(error instanceof DecisionRefused)) throw error;
    answer = refusalOf(error);
  }
  const record = idempotencyRecordOf(job, answer, nowIso());
  if (record) await saveIdempotencyRecord(trx, record);
  return answer;
}

/** The stored answer an idempotency key replays, if its record is within the window. */
export function replayOf(
  job: DecisionJob,
  previous:
    | Pick<
        IdempotencyKeysTable,
        'customer_lookup' | 'request_hash' | 'status_code' | 'response_body' | 'created_at'
      >
    | undefined,
): DecisionAnswer | undefined {
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
    body: JSON.parse(previous.response_body) as DecisionAnswer['body'],
    replayed: true,
  };
}

/** What an `Idempotency-Key` keeps of the answer; none without a key. */
export function idempotencyRecordOf(
  job: DecisionJob,
  answer: DecisionAnswer,
  now: string,
): IdempotencyKeysTable | undefined {
  if (job.idempotencyKey === undefined) return undefined;
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

export function answerOf({ outcome, decision }: DecisionOutcome): DecisionAnswer {
  return { status: outcome === 'recorded' ? 201 : 200, body: { data: decision }, replayed: false };
}

/** A refusal under the rules is an answer (`409`), kept for an idempotency key like any other. */
export function refusalOf(error: DecisionRefused): DecisionAnswer {
  return { status: error.status, body: errorBody(error), replayed: false };
}

/** Drops idempotency records past their window; answers how many went. */
export function purgeExpiredIdempotencyRecords(db: Db): Promise<number> {
  const cutoff = new Date(Date.now() - idempotencyWindowMs).toISOString();
  return deleteIdempotencyRecordsBefore(db, cutoff);
}
