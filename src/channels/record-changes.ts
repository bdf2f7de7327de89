/**
 * Records customers' channel changes in the caller's transaction, beside the decisions and
 * cookie choices of the same batch (src/write-path/batch.ts): each under its customer's lock (the lock
 * decisions and erasure take), a new customer given a subject of their own, and each change's
 * leaf queued for the tenant's decision log in the same transaction. A change to the state the
 * channel already has records nothing. The store is read once for the whole batch
 * (standing-repository.ts), then each change is decided in arrival order against it and the
 * batch's own effects.
 *
 * A change sent with an `Idempotency-Key` is checked against the key's record in the same
 * transaction, under the key's lock (the decisions' keys and mechanism, src/decisions): within
 * its window the first answer is replayed; the answer of a change is kept with it.
 */
import { type Actor, recordAudit } from '../audit-trail/index.js';
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
import { type Settled, settleEach } from '../platform/group-commit.js';
import { newId } from '../platform/ids.js';
import { lockKeys } from '../platform/locks.js';
import { nowIso } from '../platform/time.js';
import { newSalt } from '../proof/index.js';
import type { SubjectsTable, SubjectVault } from '../subjects/index.js';
import {
  newSubject,
  type OpenSubject,
  openStoredSubject,
  sealPersonal,
  storeNewSubjects,
} from '../subjects/index.js';
import type { ChannelState } from './channels.js';
import { channelChangeEvent } from './event.js';
import { leafOfChannelChange } from './leaf.js';
import { insertChannelChanges, saveChannelStates } from './repository.js';
import { findChannelStandings, type StoredChannelStanding } from './standing-repository.js';
import type { ChannelChangesTable, ChannelStatesTable } from './table.js';

/** A change as the writer takes it: plain data, so that it can cross to the writer thread. */
export interface ChannelChangeJob {
  tenantId: string;
  /** The API key that sent it; null for a back-office user's change. */
  apiKeyId: string | null;
  /** The back-office user who made it; null for an API key's change. */
  userId: string | null;
  /**
   * A back-office user's change is audited in its own transaction, naming them (the API's
   * changes are in the log with their key, as decisions are).
   */
  auditedAs?: Actor;
  ip: string;
  userAgent: string | null;
  /** Set for a change the customer made on the preference centre; kept in its evidence. */
  via?: 'preference-centre';
  customerId: string;
  /** The customer's keyed look-up (`vault.lookup`). */
  lookup: string;
  productId: string;
  productCode: string;
  channel: string;
  blocked: boolean;
  /** The request's `Idempotency-Key`, if any. */
  idempotencyKey?: string;
  /** Hex SHA-256 of the request (method, path and body), checked against the key's record. */
  requestHash: string;
}

/** The answer a channel change gives, as its idempotency key keeps it. */
export type ChannelChangeBody = { data: ChannelState };

/**
 * `recorded`: a change was stored; `unchanged`: the channel already had that state;
 * `replayed`: its `Idempotency-Key` answered, within its window, the first request's answer.
 */
export type ChannelChangeOutcome =
  | { kind: 'recorded' | 'unchanged'; state: ChannelState }
  | { kind: 'replayed'; answer: StoredAnswer<ChannelChangeBody> };

/** How the service hands a change to the hot path's writer (src/write-path/writers.ts). */
export interface ChannelChangeWriter {
  write(job: ChannelChangeJob): Promise<ChannelChangeOutcome>;
}

export async function recordChannelChanges(
  trx: Trx,
  vault: SubjectVault,
  jobs: readonly ChannelChangeJob[],
): Promise<Settled<ChannelChangeOutcome>[]> {
  await lockKeys(trx, jobs.flatMap(lockNames));
  const stored = await findChannelStandings(
    trx,
    jobs.map((job) => ({
      tenant_id: job.tenantId,
      lookup: job.lookup,
      product_id: job.productId,
      channel: job.channel,
    })),
  );
  const keyed = jobs.flatMap((job) =>
    job.idempotencyKey === undefined ? [] : [{ tenant_id: job.tenantId, key: job.idempotencyKey }],
  );
  const keys = new Map<string, IdempotencyKeysTable>();
  for (const record of await findIdempotencyRecords(trx, keyed)) {
    keys.set(keyName(record.tenant_id, record.key), record);
  }
  const batch = new ChangeBatch(vault, keys);
  const results = settleEach(jobs, stored, (job, standing) => batch.record(job, standing));
  await batch.write(trx);
  return results;
}

/** The customer's lock (the one decisions and erasure take), and the key's when there is one. */
function lockNames(job: ChannelChangeJob): string[] {
  const subject = `subject:${job.tenantId}:${job.lookup}`;
  return job.idempotencyKey === undefined
    ? [subject]
    : [subject, idempotencyLockName(job.tenantId, job.idempotencyKey)];
}

/** What the change seals and its evidence commits to: `via` only when it is set. */
function personalOf(job: ChannelChangeJob) {
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

/** The batch so far: its rows, and the subjects and states it has seen. */
class ChangeBatch {
  private readonly subjects = new Map<string, OpenSubject>();
  private readonly newSubjects: SubjectsTable[] = [];
  private readonly rows: ChannelChangesTable[] = [];
  private readonly leaves: NewLeaf[] = [];
  private readonly events: NewEvent[] = [];
  private readonly audits: Parameters<typeof recordAudit>[1][] = [];
  /** By tenant, subject, product and channel: the batch's latest state of each. */
  private readonly states = new Map<string, ChannelStatesTable>();

  /** The batch's own key records, to write. */
  private readonly newKeys = new Map<string, IdempotencyKeysTable>();

  /** `keys`, by tenant and key: the stored records of the batch's keys, then the batch's own. */
  constructor(
    private readonly vault: SubjectVault,
    private readonly keys: Map<string, IdempotencyKeysTable>,
  ) {}

  /** One change's outcome: its key's replay, or the change and then its key's record. */
  record(job: ChannelChangeJob, stored: StoredChannelStanding): ChannelChangeOutcome {
    if (job.idempotencyKey === undefined) return this.change(job, stored);
    const name = keyName(job.tenantId, job.idempotencyKey);
    const request = { customer: { lookup: job.lookup }, requestHash: job.requestHash };
    const replay = replayOf<ChannelChangeBody>(request, this.keys.get(name));
    if (replay) return { kind: 'replayed', answer: replay };
    const outcome = this.change(job, stored);
    if (outcome.kind === 'replayed') return outcome;
    const record: IdempotencyKeysTable = {
      tenant_id: job.tenantId,
      key: job.idempotencyKey,
      customer_lookup: job.lookup,
      request_hash: job.requestHash,
      status_code: outcome.kind === 'recorded' ? 201 : 200,
      response_body: JSON.stringify({ data: outcome.state } satisfies ChannelChangeBody),
      created_at: nowIso(),
    };
    this.keys.set(name, record);
    this.newKeys.set(name, record);
    return outcome;
  }

  private change(job: ChannelChangeJob, stored: StoredChannelStanding): ChannelChangeOutcome {
    const subjectName = `${job.tenantId}\u0000${job.lookup}`;
    let subject =
      this.subjects.get(subjectName) ?? openStoredSubject(this.vault, job.tenantId, stored);
    const current = subject
      ? (this.states.get(stateName(job, subject.id)) ?? storedState(stored))
      : undefined;
    if ((current?.blocked === 1) === job.blocked) {
      return { kind: 'unchanged', state: stateOf(job, current) };
    }
    const now = nowIso();
    let created: SubjectsTable | undefined;
    if (!subject) {
      const fresh = newSubject(this.vault, job.tenantId, job.customerId, job.lookup, now);
      subject = fresh.subject;
      created = fresh.row;
    }
    const id = newId();
    const row: ChannelChangesTable = {
      tenant_id: job.tenantId,
      id,
      subject_id: subject.id,
      product_id: job.productId,
      product_code: job.productCode,
      channel: job.channel,
      blocked: job.blocked ? 1 : 0,
      api_key_id: job.apiKeyId,
      user_id: job.userId,
      idempotency_key: job.idempotencyKey ?? null,
      personal: sealPersonal(subject.key, id, personalOf(job)),
      evidence_salt: newSalt(),
      changed_at: now,
    };
    const leaf = leafOfChannelChange({ ...row, ...personalOf(job) }, subject.salt);
    // Nothing above wrote: from here the change is the batch's.
    if (created) this.newSubjects.push(created);
    this.subjects.set(subjectName, subject);
    this.rows.push(row);
    this.leaves.push({ log_id: job.tenantId, record_id: id, leaf, queued_at: now });
    if (stored.event_wanted) {
      this.events.push(
        channelChangeEvent(job.tenantId, subject, job.customerId, {
          change_id: id,
          product_code: job.productCode,
          channel: job.channel,
          blocked: job.blocked,
          changed_at: now,
          actor: { api_key_id: row.api_key_id, user_id: row.user_id },
          ...(job.via ? { via: job.via } : {}),
        }),
      );
    }
    if (job.auditedAs) {
      // The customer is named by the change's id alone: an erasure leaves nothing in the audit
      // log that leads to them.
      this.audits.push({
        ...job.auditedAs,
        tenantId: job.tenantId,
        action: job.blocked ? 'channel.blocked' : 'channel.allowed',
        target: id,
        details: { product_code: job.productCode, channel: job.channel },
      });
    }
    const state: ChannelStatesTable = {
      tenant_id: job.tenantId,
      subject_id: subject.id,
      product_id: job.productId,
      channel: job.channel,
      blocked: row.blocked,
      change_id: id,
      since: now,
    };
    this.states.set(stateName(job, subject.id), state);
    return { kind: 'recorded', state: stateOf(job, state) };
  }

  async write(trx: Trx): Promise<void> {
    await storeNewSubjects(trx, this.newSubjects);
    await insertChannelChanges(trx, this.rows);
    await saveChannelStates(trx, [...this.states.values()]);
    await writeJournal(trx, { leaves: this.leaves, events: this.events });
    await keepIdempotencyRecords(trx, [...this.newKeys.values()]);
    for (const entry of this.audits) await recordAudit(trx, entry);
  }
}

function stateName(job: ChannelChangeJob, subjectId: string): string {
  return `${job.tenantId}\u0000${subjectId}\u0000${job.productId}\u0000${job.channel}`;
}

function storedState(stored: StoredChannelStanding) {
  if (stored.blocked === null || stored.change_id === null || stored.since === null) {
    return undefined;
  }
  return { blocked: Number(stored.blocked), change_id: stored.change_id, since: stored.since };
}

function stateOf(
  job: ChannelChangeJob,
  state: Pick<ChannelStatesTable, 'blocked' | 'change_id' | 'since'> | undefined,
): ChannelState {
  return {
    product_code: job.productCode,
    channel: job.channel,
    blocked: state?.blocked === 1,
    since: state?.since ?? null,
    record_id: state?.change_id ?? null,
  };
}
