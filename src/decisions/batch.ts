import { type NewEvent, type NewLeaf, writeJournal } from '../journal/index.js';
import type { Trx } from '../platform/db.js';
import type { Settled } from '../platform/group-commit.js';
import { lockKeys } from '../platform/locks.js';
import { nowIso } from '../platform/time.js';
import {
  newSubject,
  type OpenSubject,
  openSubject,
  storeNewSubjects,
} from '../subjects/service.js';
import type { SubjectsTable } from '../subjects/table.js';
import type { SubjectVault } from '../subjects/vault.js';
import { decisionEvent } from './event.js';
import {
  answerOf,
  type DecisionAnswer,
  type DecisionJob,
  idempotencyRecordOf,
  refusalOf,
  replayOf,
} from './idempotency.js';
import {
  appendDecisions,
  findStandings,
  type StoredStanding,
  saveIdempotencyRecords,
} from './repository.js';
import {
  type DecisionOutcome,
  DecisionRefused,
  newDecision,
  presentDecision,
  rule,
  type Standing,
} from './service.js';
import type { DecisionRow, IdempotencyKeysTable } from './table.js';

/**
 * Writes a batch of decisions in the caller's transaction (PostgreSQL group commit): one
 * statement takes every customer's and idempotency key's lock, one reads where each customer
 * stands, the rules run here in arrival order against the store's states and the batch's own
 * effects, and a fixed number of set-based statements write the lot. A batch costs the same
 * round trips whatever its size.
 *
 * A decision the rules refuse is answered (`409`) and its neighbours go on; one that fails
 * (an idempotency key reused for another request, a fault) fails alone, having written nothing:
 * its writes are only added to the batch's once it has succeeded.
 */
export async function writeDecisionBatch(
  trx: Trx,
  vault: SubjectVault,
  jobs: readonly DecisionJob[],
): Promise<Settled<DecisionAnswer>[]> {
  // The same locks as a decision alone (service.ts, idempotency.ts), in one statement.
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
  const batch = new Batch(vault);
  const results = jobs.map((job, i): Settled<DecisionAnswer> => {
    try {
      return { ok: true, value: batch.answer(job, stored[i]) };
    } catch (error) {
      return { ok: false, error };
    }
  });
  await batch.write(trx);
  return results;
}

function lockNames(job: DecisionJob): string[] {
  const { tenantId } = job.context;
  const subject = `subject:${tenantId}:${job.customer.lookup}`;
  return job.idempotencyKey === undefined
    ? [subject]
    : [subject, `idempotency:${tenantId}:${job.idempotencyKey}`];
}

/** The batch so far: what it has written, and where its customers stand since. */
class Batch {
  /** By tenant and look-up: a subject opened from the store, or created by this batch. */
  private readonly subjects = new Map<string, OpenSubject>();
  private readonly newSubjects: SubjectsTable[] = [];
  private readonly decisions = new Map<string, DecisionRow>();
  private readonly leaves: NewLeaf[] = [];
  /** The latest decision of the batch by customer and template, release and version. */
  private readonly byTemplate = new Map<string, DecisionRow>();
  private readonly byRelease = new Map<string, DecisionRow>();
  private readonly byVersion = new Map<string, DecisionRow>();
  private readonly keys = new Map<string, IdempotencyKeysTable>();
  private readonly events: NewEvent[] = [];

  constructor(private readonly vault: SubjectVault) {}

  /** The decision's answer, as `writeDecision` gives it alone; its writes join the batch's. */
  answer(job: DecisionJob, stored: StoredStanding | undefined): DecisionAnswer {
    if (!stored) throw new Error('the store answered no standing for a decision');
    const keyName = `${job.context.tenantId}\u0000${job.idempotencyKey}`;
    if (job.idempotencyKey !== undefined) {
      const replay = replayOf(job, this.keys.get(keyName) ?? storedKey(stored));
      if (replay) return replay;
    }
    let answer: DecisionAnswer;
    try {
      answer = answerOf(this.record(job, stored));
    } catch (error) {
      if (!(error instanceof DecisionRefused)) throw error;
      answer = refusalOf(error);
    }
    const record = idempotencyRecordOf(job, answer, nowIso());
    if (record) this.keys.set(keyName, record);
    return answer;
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
    const standing: Standing = known
      ? {
          template: latestOnTemplate
            ? { decision_count: latestOnTemplate.seq, last_decision: latestOnTemplate.decision }
            : storedTemplate(stored),
          release: latestOnRelease
            ? { last_decision: latestOnRelease.decision, last_decision_id: latestOnRelease.id }
            : storedRelease(stored),
        }
      : { template: undefined, release: undefined };
    const ruling = rule(standing, version, request.decision);
    if (ruling.kind === 'unchanged') {
      const existing = this.decisions.get(ruling.decisionId) ?? storedLatest(stored);
      return {
        outcome: 'unchanged',
        decision: presentDecision(existing, customer.id, version.template_code),
      };
    }
    const now = nowIso();
    let subject = known;
    let created: SubjectsTable | undefined;
    if (!subject) {
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
    if (stored.event_wanted) this.events.push(decisionEvent(context.tenantId, subject, decision));
    return { outcome: 'recorded', decision };
  }

  private storedSubject(job: DecisionJob, stored: StoredStanding): OpenSubject | undefined {
    if (stored.subject_id === null) return undefined;
    const { tenantId } = job.context;
    const subject = openSubject(this.vault, tenantId, { ...stored, id: stored.subject_id });
    this.subjects.set(`${tenantId}\u0000${job.customer.lookup}`, subject);
    return subject;
  }

  /** The batch's writes, in a fixed number of statements. */
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

function storedRelease(stored: StoredStanding): Standing['release'] {
  if (stored.release_last_id === null || stored.release_last === null) return undefined;
  return { last_decision: stored.release_last, last_decision_id: stored.release_last_id };
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
