/**
 * The one orchestration of decisions, for both stores: a batch of jobs in arrival order (the
 * decisions that reached the writer together: the SQLite writer thread's batch, a PostgreSQL
 * group commit), in the caller's transaction. The store-specific part is only how the
 * statements run (`repository.ts`: prepared one by one on SQLite, set-based on PostgreSQL).
 */
import { type NewEvent, type NewLeaf, writeJournal } from '../journal/index.js';
import type { Trx } from '../platform/db.js';
import { type Settled, settleEach } from '../platform/group-commit.js';
import { lockKeys } from '../platform/locks.js';
import { nowIso } from '../platform/time.js';
import type { SubjectsTable, SubjectVault } from '../subjects/index.js';
import {
  newSubject,
  type OpenSubject,
  openStoredSubject,
  storeNewSubjects,
} from '../subjects/index.js';
import { type AskedDecision, newDecision, presentDecision } from './decision.js';
import { decisionEvent } from './event.js';
import {
  idempotencyLockName,
  idempotencyRecordOf,
  replayOf,
  type StoredAnswer,
} from './idempotency.js';
import { lapseOf } from './lapse.js';
import { appendDecisions, saveIdempotencyRecords } from './repository.js';
import { DecisionRefused, rule, type Standing } from './rule.js';
import type { RecordedDecision } from './schemas.js';
import { findStandings, type StoredStanding } from './standing-repository.js';
import type { DecisionRow, IdempotencyKeysTable } from './table.js';

/**
 * A decision as the writer takes it: everything read and computed on the request's side, plain
 * data, so that it can cross to the SQLite writer thread.
 */
export interface DecisionJob extends AskedDecision {
  requestHash: string;
}

/**
 * What became of a decision:
 * - `recorded`: a new decision was stored;
 * - `unchanged`: the same decision was already given on a version that does not allow
 *   re-consent, and nothing was stored;
 * - `refused`: the rules of contract section 5 refused it (nothing stored but its key's answer);
 * - `replayed`: its `Idempotency-Key` answered, within its window, the first request's answer.
 */
export type DecisionOutcome =
  | { kind: 'recorded' | 'unchanged'; decision: RecordedDecision }
  | { kind: 'refused'; refusal: DecisionRefused['kind'] }
  | { kind: 'replayed'; answer: StoredAnswer };

/**
 * Records a batch of decisions in the caller's transaction: one statement takes every customer's
 * and idempotency key's lock (PostgreSQL; SQLite's writer is alone), the store is read for where
 * each customer stands, then each decision in arrival order replays its key, or goes through the
 * rules against the store's states and the batch's own effects, and the batch is written.
 *
 * A decision the rules refuse is answered and its neighbours go on; one that fails (an
 * idempotency key reused for another request, a fault) fails alone, having written nothing: its
 * writes join the batch's only once it has succeeded.
 */
export async function recordDecisions(
  trx: Trx,
  vault: SubjectVault,
  jobs: readonly DecisionJob[],
): Promise<Settled<DecisionOutcome>[]> {
  await lockKeys(trx, jobs.flatMap(lockNames));
  const stored = await findStandings(
    trx,
    jobs.map((job) => ({
      tenant_id: job.context.tenantId,
      lookup: job.customer.lookup,
      template_id: job.version.template_id,
      release_id: job.version.release_id,
      idempotency_key: job.idempotencyKey ?? null,
      event_type: `decision.${job.request.decision}`,
    })),
  );
  const batch = new DecisionBatch(vault);
  const results = settleEach(jobs, stored, (job, standing) => batch.decide(job, standing));
  await batch.write(trx);
  return results;
}

/**
 * The locks a decision takes: one decision at a time per customer (the rules read the state they
 * change, and an erasure, which takes the same lock, never interleaves), and per idempotency key
 * (the same key at the same moment: the second waits, then sees the first's record).
 */
function lockNames(job: DecisionJob): string[] {
  const { tenantId } = job.context;
  const subject = `subject:${tenantId}:${job.customer.lookup}`;
  return job.idempotencyKey === undefined
    ? [subject]
    : [subject, idempotencyLockName(tenantId, job.idempotencyKey)];
}

/** The batch so far: what it has to write, and where its customers stand since. */
class DecisionBatch {
  /** By tenant and look-up: a subject opened from the store, or created by this batch. */
  private readonly subjects = new Map<string, OpenSubject>();
  private readonly newSubjects: SubjectsTable[] = [];
  private readonly decisions = new Map<string, DecisionRow>();
  private readonly leaves: NewLeaf[] = [];
  private readonly events: NewEvent[] = [];
  /** The latest decision of the batch by customer and template, release and version. */
  private readonly byTemplate = new Map<string, DecisionRow>();
  private readonly byRelease = new Map<string, DecisionRow>();
  private readonly byVersion = new Map<string, DecisionRow>();
  private readonly keys = new Map<string, IdempotencyKeysTable>();

  constructor(private readonly vault: SubjectVault) {}

  /** One decision's outcome; its writes join the batch's. */
  decide(job: DecisionJob, stored: StoredStanding): DecisionOutcome {
    const keyName = `${job.context.tenantId}\u0000${job.idempotencyKey}`;
    if (job.idempotencyKey !== undefined) {
      const replay = replayOf(job, this.keys.get(keyName) ?? storedKey(stored));
      if (replay) return { kind: 'replayed', answer: replay };
    }
    let outcome: DecisionOutcome;
    try {
      outcome = this.record(job, stored);
    } catch (error) {
      if (!(error instanceof DecisionRefused)) throw error;
      outcome = { kind: 'refused', refusal: error.kind };
    }
    const record = idempotencyRecordOf(job, outcome, nowIso());
    if (record) this.keys.set(keyName, record);
    return outcome;
  }

  private record(job: DecisionJob, stored: StoredStanding): DecisionOutcome {
    const { version, context, customer, request } = job;
    const subjectName = `${context.tenantId}\u0000${customer.lookup}`;
    const known = this.subjects.get(subjectName) ?? this.storedSubject(job, stored);
    const at = (kind: string, id: string) => `${subjectName}\u0000${kind}\u0000${id}`;
    const templateName = at('template', version.template_id);
    const releaseName = at('release', version.release_id);
    const latestOnTemplate = this.byTemplate.get(templateName);
    const latestOnRelease = this.byRelease.get(releaseName);
    const now = nowIso();
    const standing: Standing = known
      ? {
          template: latestOnTemplate
            ? { decision_count: latestOnTemplate.seq, last_decision: latestOnTemplate.decision }
            : storedTemplate(stored),
          // A decision of this batch was made now: it has not lapsed.
          release: latestOnRelease
            ? { last_decision: latestOnRelease.decision, last_decision_id: latestOnRelease.id }
            : storedRelease(stored, job.validityMonths ?? null, now),
        }
      : { template: undefined, release: undefined };
    const ruling = rule(standing, version, request.decision);
    if (ruling.kind === 'unchanged') {
      const existing = this.decisions.get(ruling.decisionId) ?? storedLatest(stored);
      return {
        kind: 'unchanged',
        decision: presentDecision(existing, customer.id, version.template_code),
      };
    }
    let subject = known;
    let created: SubjectsTable | undefined;
    if (!subject) {
      // A customer the store does not know yet gets a subject only with their first decision.
      const fresh = newSubject(this.vault, context.tenantId, customer.id, customer.lookup, now);
      subject = fresh.subject;
      created = fresh.row;
    }
    const { row, leaf } = newDecision(job, subject, ruling.seq, now);
    // Nothing above wrote: from here the decision is the batch's.
    if (created) this.newSubjects.push(created);
    this.subjects.set(subjectName, subject);
    this.decisions.set(row.id, row);
    this.byTemplate.set(templateName, row);
    this.byRelease.set(releaseName, row);
    this.byVersion.set(at('version', version.id), row);
    this.leaves.push({ log_id: context.tenantId, record_id: row.id, leaf, queued_at: now });
    const decision = presentDecision(row, customer.id, version.template_code);
    if (stored.event_wanted) {
      this.events.push(decisionEvent(context.tenantId, subject, decision, context.via));
    }
    return { kind: 'recorded', decision };
  }

  private storedSubject(job: DecisionJob, stored: StoredStanding): OpenSubject | undefined {
    const { tenantId } = job.context;
    const subject = openStoredSubject(this.vault, tenantId, stored);
    if (subject) this.subjects.set(`${tenantId}\u0000${job.customer.lookup}`, subject);
    return subject;
  }

  /** The batch's writes: on PostgreSQL a fixed number of statements, whatever its size. */
  async write(trx: Trx): Promise<void> {
    await storeNewSubjects(trx, this.newSubjects);
    await appendDecisions(
      trx,
      [...this.decisions.values()],
      [...this.byTemplate.values()],
      [...this.byVersion.values()],
    );
    await writeJournal(trx, { leaves: this.leaves, events: this.events });
    await saveIdempotencyRecords(trx, [...this.keys.values()]);
  }
}

function storedTemplate(stored: StoredStanding): Standing['template'] {
  if (stored.decision_count === null || stored.template_last === null) return undefined;
  return { decision_count: stored.decision_count, last_decision: stored.template_last };
}

function storedRelease(
  stored: StoredStanding,
  validityMonths: number | null,
  now: string,
): Standing['release'] {
  if (stored.release_last_id === null || stored.release_last === null) return undefined;
  const release = { last_decision: stored.release_last, last_decision_id: stored.release_last_id };
  const lapse = lapseOf(stored.release_last, stored.release_last_at, validityMonths, now);
  return lapse?.expired ? { ...release, lapsed: true } : release;
}

function storedLatest(stored: StoredStanding): Parameters<typeof presentDecision>[0] {
  const { release_last_id, release_last_version_id, release_last_version, release_last } = stored;
  if (
    release_last_id === null ||
    release_last_version_id === null ||
    release_last_version === null ||
    release_last === null ||
    stored.release_last_at === null
  ) {
    throw new Error('an unchanged decision names a decision the store does not have');
  }
  return {
    id: release_last_id,
    consent_version_id: release_last_version_id,
    version: release_last_version,
    decision: release_last,
    decided_at: stored.release_last_at,
  };
}

function storedKey(stored: StoredStanding): Parameters<typeof replayOf>[1] {
  const { key_lookup, key_request_hash, key_status, key_body, key_created_at } = stored;
  if (
    key_lookup === null ||
    key_request_hash === null ||
    key_status === null ||
    key_body === null ||
    key_created_at === null
  ) {
    return undefined;
  }
  return {
    customer_lookup: key_lookup,
    request_hash: key_request_hash,
    status_code: key_status,
    response_body: key_body,
    created_at: key_created_at,
  };
}
