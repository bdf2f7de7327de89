/**
 * Records partner blocks' changes in the caller's transaction, beside the decisions, cookie
 * choices and channel changes of the same batch (src/write-path/batch.ts): each under its customer's
 * lock (the lock decisions and erasure take), its leaf queued for the tenant's decision log in
 * the same transaction. A change to the state the partner already has on the decision records
 * nothing. The service checked that the decision is the customer's and lists the partner; a
 * customer erased since then has no subject any more, and their change is `404 1004`.
 *
 * A change sent with an `Idempotency-Key` is checked against the key's record in the same
 * transaction, under the key's lock, as a channel change is (the decisions' keys and
 * mechanism): within its window the first answer is replayed; the answer of a change is kept.
 */
import {
  findIdempotencyRecords,
  type IdempotencyKeysTable,
  idempotencyLockName,
  keepIdempotencyRecords,
  replayOf,
  type StoredAnswer,
} from '../decisions/index.js';
import { type NewEvent, type NewLeaf, writeJournal } from '../journal/index.js';
import type { Trx } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { type Settled, settleEach } from '../platform/group-commit.js';
import { newId } from '../platform/ids.js';
import { lockKeys } from '../platform/locks.js';
import { nowIso } from '../platform/time.js';
import { newSalt } from '../proof/index.js';
import type { SubjectVault } from '../subjects/index.js';
import { type OpenSubject, openStoredSubject, sealPersonal } from '../subjects/index.js';
import type { PartnerBlockState } from './blocks.js';
import { partnerBlockEvent } from './event.js';
import { leafOfPartnerBlock } from './leaf.js';
import { insertPartnerBlockChanges, savePartnerBlockStates } from './repository.js';
import { findBlockStandings, type StoredBlockStanding } from './standing-repository.js';
import type { PartnerBlockChangesTable, PartnerBlockStatesTable } from './table.js';

/** A change as the writer takes it: plain data, so that it can cross to the writer thread. */
export interface PartnerBlockJob {
  tenantId: string;
  apiKeyId: string | null;
  userId: string | null;
  ip: string;
  userAgent: string | null;
  /** Set for a change the customer made on the preference centre; kept in its evidence. */
  via?: 'preference-centre';
  idempotencyKey: string | null;
  customerId: string;
  /** The customer's keyed look-up (`vault.lookup`). */
  lookup: string;
  /** The decision's customer, as the service found it. */
  subjectId: string;
  decisionId: string;
  partnerCode: string;
  blocked: boolean;
  /** Hex SHA-256 of the request (method, path and body), checked against the key's record. */
  requestHash: string;
}

/** The answer a partner block gives, as its idempotency key keeps it. */
export type PartnerBlockBody = { data: PartnerBlockState };

/**
 * `recorded`: a change was stored; `unchanged`: the partner already had that state;
 * `replayed`: its `Idempotency-Key` answered, within its window, the first request's answer.
 */
export type PartnerBlockOutcome =
  | { kind: 'recorded' | 'unchanged'; state: PartnerBlockState }
  | { kind: 'replayed'; answer: StoredAnswer<PartnerBlockBody> };

/** How the service hands a change to the hot path's writer (src/write-path/writers.ts). */
export interface PartnerBlockWriter {
  write(job: PartnerBlockJob): Promise<PartnerBlockOutcome>;
}

export async function recordPartnerBlocks(
  trx: Trx,
  vault: SubjectVault,
  jobs: readonly PartnerBlockJob[],
): Promise<Settled<PartnerBlockOutcome>[]> {
  await lockKeys(
    trx,
    jobs.flatMap((job) => [
      `subject:${job.tenantId}:${job.lookup}`,
      ...(job.idempotencyKey === null
        ? []
        : [idempotencyLockName(job.tenantId, job.idempotencyKey)]),
    ]),
  );
  const keys = new Map<string, IdempotencyKeysTable>();
  const keyed = jobs.flatMap((job) =>
    job.idempotencyKey === null ? [] : [{ tenant_id: job.tenantId, key: job.idempotencyKey }],
  );
  for (const record of await findIdempotencyRecords(trx, keyed)) {
    keys.set(keyName(record.tenant_id, record.key), record);
  }
  const stored = await findBlockStandings(
    trx,
    jobs.map((job) => ({
      tenant_id: job.tenantId,
      lookup: job.lookup,
      decision_id: job.decisionId,
      partner_code: job.partnerCode,
    })),
  );
  const batch = new BlockBatch(vault, keys);
  const results = settleEach(jobs, stored, (job, standing) => batch.record(job, standing));
  await batch.write(trx);
  return results;
}

/** The batch so far: its rows, and the subjects and states it has seen. */
class BlockBatch {
  private readonly subjects = new Map<string, OpenSubject>();
  private readonly rows: PartnerBlockChangesTable[] = [];
  private readonly leaves: NewLeaf[] = [];
  private readonly events: NewEvent[] = [];
  /** By tenant, decision and partner: the batch's latest state of each. */
  private readonly states = new Map<string, PartnerBlockStatesTable>();
  /** The batch's own key records, to write. */
  private readonly newKeys: IdempotencyKeysTable[] = [];

  /** `keys`, by tenant and key: the stored records of the batch's keys, then the batch's own. */
  constructor(
    private readonly vault: SubjectVault,
    private readonly keys: Map<string, IdempotencyKeysTable>,
  ) {}

  /** One change's outcome: its key's replay, or the change and then its key's record. */
  record(job: PartnerBlockJob, stored: StoredBlockStanding): PartnerBlockOutcome {
    if (job.idempotencyKey === null) return this.change(job, stored);
    const name = keyName(job.tenantId, job.idempotencyKey);
    const request = { customer: { lookup: job.lookup }, requestHash: job.requestHash };
    const replay = replayOf<PartnerBlockBody>(request, this.keys.get(name));
    if (replay) return { kind: 'replayed', answer: replay };
    const outcome = this.change(job, stored);
    const record: IdempotencyKeysTable = {
      tenant_id: job.tenantId,
      key: job.idempotencyKey,
      customer_lookup: job.lookup,
      request_hash: job.requestHash,
      status_code: outcome.kind === 'recorded' ? 201 : 200,
      response_body: JSON.stringify({ data: outcome.state } satisfies PartnerBlockBody),
      created_at: nowIso(),
    };
    this.keys.set(name, record);
    this.newKeys.push(record);
    return outcome;
  }

  private change(
    job: PartnerBlockJob,
    stored: StoredBlockStanding,
  ): Extract<PartnerBlockOutcome, { state: PartnerBlockState }> {
    const subject =
      this.subjects.get(job.subjectId) ?? openStoredSubject(this.vault, job.tenantId, stored);
    if (!subject || subject.id !== job.subjectId) {
      throw new AppError('notFound', { message: 'Decision not found.' });
    }
    const key = stateName(job);
    const current = this.states.get(key) ?? storedState(stored);
    if ((current?.blocked === 1) === job.blocked) {
      return { kind: 'unchanged', state: stateOf(job, current) };
    }
    const now = nowIso();
    const id = newId();
    const row: PartnerBlockChangesTable = {
      tenant_id: job.tenantId,
      id,
      subject_id: subject.id,
      decision_id: job.decisionId,
      partner_code: job.partnerCode,
      blocked: job.blocked ? 1 : 0,
      api_key_id: job.apiKeyId,
      user_id: job.userId,
      idempotency_key: job.idempotencyKey,
      personal: sealPersonal(subject.key, id, personalOf(job)),
      evidence_salt: newSalt(),
      changed_at: now,
    };
    const leaf = leafOfPartnerBlock({ ...row, ...personalOf(job) }, subject.salt);
    // Nothing above wrote: from here the change is the batch's.
    this.subjects.set(job.subjectId, subject);
    this.rows.push(row);
    this.leaves.push({ log_id: job.tenantId, record_id: id, leaf, queued_at: now });
    if (stored.event_wanted) {
      this.events.push(
        partnerBlockEvent(job.tenantId, subject, job.customerId, {
          change_id: id,
          decision_id: job.decisionId,
          partner_code: job.partnerCode,
          blocked: job.blocked,
          changed_at: now,
          actor: { api_key_id: job.apiKeyId, user_id: job.userId },
          ...(job.via ? { via: job.via } : {}),
        }),
      );
    }
    const state: PartnerBlockStatesTable = {
      tenant_id: job.tenantId,
      decision_id: job.decisionId,
      partner_code: job.partnerCode,
      subject_id: subject.id,
      blocked: row.blocked,
      change_id: id,
      since: now,
    };
    this.states.set(key, state);
    return { kind: 'recorded', state: stateOf(job, state) };
  }

  async write(trx: Trx): Promise<void> {
    await insertPartnerBlockChanges(trx, this.rows);
    await savePartnerBlockStates(trx, [...this.states.values()]);
    await keepIdempotencyRecords(trx, this.newKeys);
    await writeJournal(trx, { leaves: this.leaves, events: this.events });
  }
}

/** What the change seals and its evidence commits to: `via` only when it is set. */
function personalOf(job: PartnerBlockJob) {
  return {
    customer_id: job.customerId,
    ip: job.ip,
    user_agent: job.userAgent,
    ...(job.via ? { via: job.via } : {}),
  };
}

function keyName(tenantId: string, key: string): string {
  return `${tenantId}\u0000${key}`;
}

function stateName(job: PartnerBlockJob): string {
  return `${job.tenantId}\u0000${job.decisionId}\u0000${job.partnerCode}`;
}

function storedState(stored: StoredBlockStanding) {
  if (stored.blocked === null || stored.change_id === null || stored.since === null) {
    return undefined;
  }
  return { blocked: Number(stored.blocked), change_id: stored.change_id, since: stored.since };
}

function stateOf(
  job: PartnerBlockJob,
  state: Pick<PartnerBlockStatesTable, 'blocked' | 'change_id' | 'since'> | undefined,
): PartnerBlockState {
  return {
    partner_code: job.partnerCode,
    blocked: state?.blocked === 1,
    since: state?.since ?? null,
    record_id: state?.change_id ?? null,
  };
}
