/**
 * The one recorder of every kind's batch, in the writer's transaction (the write path hands it
 * each kind's part of a batch, in arrival order within the kind): every job's locks in one
 * statement, the store read once for the whole batch (the kind's standing), then each job in
 * arrival order: its `Idempotency-Key` replayed within the window, else the kind's rule against
 * the standing and the batch's own effects; then the batch's writes: new subjects, the kind's
 * rows, the leaves and events (journal), the keys' answers and the audit entries, all in the
 * same transaction. A job the rule refuses is answered and its neighbours go on; one that fails
 * (a key reused for another request, a fault) fails alone, having written nothing.
 */
import { recordAudit } from '../audit-trail/index.js';
import { type NewEvent, type NewLeaf, writeJournal } from '../journal/index.js';
import type { Trx } from '../platform/db.js';
import { type Settled, settleEach } from '../platform/group-commit.js';
import { lockKey, lockKeys } from '../platform/locks.js';
import { nowIso } from '../platform/time.js';
import {
  newSubject,
  type OpenSubject,
  openStoredSubject,
  type SubjectsTable,
  type SubjectVault,
  storeNewSubjects,
} from '../subjects/index.js';
import {
  findIdempotencyRecords,
  idempotencyLockName,
  keepIdempotencyRecords,
  replayOf,
} from './idempotency.js';
import type {
  Decided,
  KindBatch,
  KindWrites,
  RecordAudit,
  Replayed,
  Standing,
  StoredKey,
  SubjectBook,
} from './kind.js';
import type { IdempotencyKeysTable } from './table.js';

/** Records a batch of one kind's jobs in the caller's transaction, answering each in order. */
export async function recordKindBatch<Job, Outcome, S extends Standing>(
  trx: Trx,
  vault: SubjectVault,
  writes: KindWrites<Job, Outcome, S>,
  jobs: readonly Job[],
): Promise<Settled<Outcome | Replayed>[]> {
  await lockKeys(
    trx,
    jobs.flatMap((job) => lockNames(writes, job)),
  );
  const standings = await writes.standings(trx, jobs);
  const keys = writes.keysInStanding ? new Map() : await storedKeys(trx, writes, jobs);
  const batch = new Batch(vault, writes, writes.batch(vault), keys);
  const results = settleEach(jobs, standings, (job, standing) => batch.take(job, standing));
  await batch.write(trx);
  return results;
}

/** The lock every write of a subject's takes (a batch's job, an erasure, a request's step). */
const subjectLockName = (tenantId: string, lookup: string) => `subject:${tenantId}:${lookup}`;

/**
 * Takes a subject's lock in the caller's transaction, outside the write path: an erasure, a
 * data-subject request's step. Every write of theirs then waits, and is waited for.
 */
export function lockSubject(trx: Trx, tenantId: string, lookup: string): Promise<void> {
  return lockKey(trx, subjectLockName(tenantId, lookup));
}

/**
 * The locks a job takes: one write at a time per subject (a rule reads the state it changes, and
 * an erasure, which takes the same lock, never interleaves), the kind's own, and the key's (the
 * same key at the same moment: the second waits, then sees the first's record).
 */
function lockNames<Job>(writes: KindWrites<Job, unknown, Standing>, job: Job): string[] {
  const { tenantId, lookup } = writes.subjectOf(job);
  const keyed = writes.idempotency?.(job);
  const other = writes.otherSubjectOf?.(job);
  return [
    subjectLockName(tenantId, lookup),
    ...(other === undefined ? [] : [subjectLockName(tenantId, other)]),
    ...(writes.locks?.(job) ?? []),
    ...(keyed ? [idempotencyLockName(tenantId, keyed.key)] : []),
  ];
}

const keyName = (tenantId: string, key: string) => `${tenantId}\u0000${key}`;

/** The stored records of the batch's keys, by tenant and key. */
async function storedKeys<Job>(
  trx: Trx,
  writes: KindWrites<Job, unknown, Standing>,
  jobs: readonly Job[],
): Promise<Map<string, StoredKey>> {
  const asked = jobs.flatMap((job) => {
    const keyed = writes.idempotency?.(job);
    return keyed ? [{ tenant_id: writes.subjectOf(job).tenantId, key: keyed.key }] : [];
  });
  const keys = new Map<string, StoredKey>();
  for (const record of await findIdempotencyRecords(trx, asked)) {
    keys.set(keyName(record.tenant_id, record.key), record);
  }
  return keys;
}

/** The batch so far: its subjects, and what it has to write beside the kind's rows. */
class Batch<Job, Outcome, S extends Standing> {
  /** By tenant and look-up: a subject opened from the store, or made by this batch. */
  private readonly subjects = new Map<string, OpenSubject>();
  private readonly newSubjects: SubjectsTable[] = [];
  private readonly leaves: NewLeaf[] = [];
  private readonly events: NewEvent[] = [];
  private readonly audits: RecordAudit[] = [];
  /** The batch's own keys' answers, to write: one per key, the latest. */
  private readonly newKeys = new Map<string, IdempotencyKeysTable>();
  private readonly book: SubjectBook;

  constructor(
    private readonly vault: SubjectVault,
    private readonly writes: KindWrites<Job, Outcome, S>,
    private readonly kind: KindBatch<Job, Outcome, S>,
    /** The stored records of the batch's keys, then the batch's own. */
    private readonly keys: Map<string, StoredKey>,
  ) {
    this.book = {
      find: (tenantId, lookup, standing) => {
        const name = keyName(tenantId, lookup);
        const known = this.subjects.get(name);
        if (known) return known;
        // A stored subject is opened once a batch; a new one is kept only with its record.
        const opened = openStoredSubject(this.vault, tenantId, standing);
        if (opened) this.subjects.set(name, opened);
        return opened;
      },
      create: (tenantId, customerId, lookup, at) =>
        newSubject(this.vault, tenantId, customerId, lookup, at),
    };
  }

  /** One job's outcome: its key's replay, or the kind's rule and then the key's record. */
  take(job: Job, standing: S): Outcome | Replayed {
    const keyed = this.writes.idempotency?.(job);
    const { tenantId, lookup } = this.writes.subjectOf(job);
    const name = keyed && keyName(tenantId, keyed.key);
    if (keyed && name) {
      const stored = this.writes.keysInStanding
        ? (standing as S & { stored_key?: StoredKey | null }).stored_key
        : undefined;
      const previous = this.keys.get(name) ?? stored ?? undefined;
      const replay = replayOf({ customer: { lookup }, requestHash: keyed.requestHash }, previous);
      if (replay) return { kind: 'replayed', answer: replay };
    }
    const decided = this.kind.decide(job, standing, this.book);
    if (decided.record) this.keep(decided, standing);
    const answer = keyed && name ? this.writes.answer?.(decided.outcome) : undefined;
    if (keyed && name && answer) {
      const record: IdempotencyKeysTable = {
        tenant_id: tenantId,
        key: keyed.key,
        customer_lookup: lookup,
        request_hash: keyed.requestHash,
        status_code: answer.status,
        response_body: JSON.stringify(answer.body),
        created_at: nowIso(),
      };
      this.keys.set(name, record);
      this.newKeys.set(name, record);
    }
    return decided.outcome;
  }

  /** A record made: what it leaves is built first, then it becomes the batch's. */
  private keep(decided: Extract<Decided<Outcome>, { record: object }>, standing: S): void {
    const { record } = decided;
    const event = standing.event_wanted ? record.event?.(record.subject) : undefined;
    decided.commit();
    if (record.created) this.newSubjects.push(record.created);
    this.subjects.set(keyName(record.tenantId, record.lookup), record.subject);
    if (record.other) {
      if (record.other.created) this.newSubjects.push(record.other.created);
      this.subjects.set(keyName(record.tenantId, record.other.lookup), record.other.subject);
    }
    this.leaves.push({
      log_id: record.tenantId,
      record_id: record.id,
      leaf: record.leaf,
      queued_at: record.at,
    });
    if (event) this.events.push(event);
    if (record.audit) this.audits.push(record.audit);
  }

  /** The batch's writes: on PostgreSQL a fixed number of statements, whatever its size. */
  async write(trx: Trx): Promise<void> {
    await storeNewSubjects(trx, this.newSubjects);
    await this.kind.write(trx);
    await writeJournal(trx, { leaves: this.leaves, events: this.events });
    await keepIdempotencyRecords(trx, [...this.newKeys.values()]);
    for (const entry of this.audits) await recordAudit(trx, entry);
  }
}
