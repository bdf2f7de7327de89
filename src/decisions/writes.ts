/**
 * Decisions as a kind of record's writes (src/record-kinds): the rules of a batch of decisions in
 * arrival order, against where each customer stands in the store (one read for the batch:
 * `standing-repository.ts`) and the batch's own effects; the generic recorder runs them in the
 * writer's transaction with the locks, idempotency, leaves, events and audit every kind shares.
 * The store-specific part is only how the statements run (`repository.ts`: prepared one by one
 * on SQLite, set-based on PostgreSQL).
 */

import type { Trx } from '../platform/db.js';
import { nowIso } from '../platform/time.js';
import type {
  KindBatch,
  KindWrites,
  Replayed,
  StoredKey,
  SubjectBook,
} from '../record-kinds/index.js';
import { answerOf, type DecisionAnswer } from './answer.js';
import { type AskedDecision, newDecision, presentDecision } from './decision.js';
import { decisionEvent } from './event.js';
import { lapseOf } from './lapse.js';
import { appendDecisions } from './repository.js';
import { DecisionRefused, rule, type Standing } from './rule.js';
import type { RecordedDecision } from './schemas.js';
import { findStandings, type StoredStanding } from './standing-repository.js';
import type { DecisionRow } from './table.js';

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
  | Replayed<DecisionAnswer['body']>;

/** A decision's standing, its key's record read in the same statement. */
type DecisionStanding = StoredStanding & { stored_key: StoredKey | undefined };

/** How the write path records decisions (the generic recorder runs it). */
export const decisionWrites: KindWrites<DecisionJob, DecisionOutcome, DecisionStanding> = {
  subjectOf: (job) => ({ tenantId: job.context.tenantId, lookup: job.customer.lookup }),
  idempotency: (job) =>
    job.idempotencyKey === undefined
      ? undefined
      : { key: job.idempotencyKey, requestHash: job.requestHash },
  answer: (outcome) => {
    const { status, body } = answerOf(outcome);
    return { status, body };
  },
  keysInStanding: true,
  async standings(trx, jobs) {
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
    return stored.map((standing) => ({ ...standing, stored_key: storedKey(standing) }));
  },
  batch: () => new DecisionBatch(),
};

/** The batch so far: its decisions, and where its customers stand since. */
class DecisionBatch implements KindBatch<DecisionJob, DecisionOutcome, DecisionStanding> {
  private readonly decisions = new Map<string, DecisionRow>();
  /** The latest decision of the batch by customer and template, release and version. */
  private readonly byTemplate = new Map<string, DecisionRow>();
  private readonly byRelease = new Map<string, DecisionRow>();
  private readonly byVersion = new Map<string, DecisionRow>();

  /** One decision's outcome: the rules of contract section 5, refused ones answered too. */
  decide(job: DecisionJob, stored: DecisionStanding, subjects: SubjectBook) {
    try {
      return this.record(job, stored, subjects);
    } catch (error) {
      if (!(error instanceof DecisionRefused)) throw error;
      return { outcome: { kind: 'refused' as const, refusal: error.kind } };
    }
  }

  private record(job: DecisionJob, stored: DecisionStanding, subjects: SubjectBook) {
    const { version, context, customer, request } = job;
    const known = subjects.find(context.tenantId, customer.lookup, stored);
    const at = (kind: string, id: string) =>
      `${context.tenantId}\u0000${customer.lookup}\u0000${kind}\u0000${id}`;
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
        outcome: {
          kind: 'unchanged' as const,
          decision: presentDecision(existing, customer.id, version.template_code),
        },
      };
    }
    // A customer the store does not know yet gets a subject only with their first decision.
    const fresh = known
      ? undefined
      : subjects.create(context.tenantId, customer.id, customer.lookup, now);
    const subject = known ?? (fresh?.subject as NonNullable<typeof known>);
    const { row, leaf } = newDecision(job, subject, ruling.seq, now);
    const decision = presentDecision(row, customer.id, version.template_code);
    return {
      outcome: { kind: 'recorded' as const, decision },
      record: {
        tenantId: context.tenantId,
        lookup: customer.lookup,
        id: row.id,
        at: now,
        subject,
        ...(fresh ? { created: fresh.row } : {}),
        leaf,
        event: (owner: { id: string; key: Buffer }) =>
          decisionEvent(context.tenantId, owner, decision, context.via),
      },
      commit: () => {
        this.decisions.set(row.id, row);
        this.byTemplate.set(templateName, row);
        this.byRelease.set(releaseName, row);
        this.byVersion.set(at('version', version.id), row);
      },
    };
  }

  /** The batch's rows: on PostgreSQL a fixed number of statements, whatever its size. */
  async write(trx: Trx): Promise<void> {
    await appendDecisions(
      trx,
      [...this.decisions.values()],
      [...this.byTemplate.values()],
      [...this.byVersion.values()],
    );
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

function storedKey(stored: StoredStanding): StoredKey | undefined {
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
