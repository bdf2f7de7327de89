/**
 * Records visitors' choices in the caller's transaction, beside the decisions of the same batch
 * (src/write-path/batch.ts): each under its visitor's lock, a retry (same event id) answered with its
 * first record, a new visitor given a subject of their own, and each choice's leaf queued for
 * the tenant's decision log in the same transaction. The store is read once for the whole batch
 * (choice-standing-repository.ts), then each choice is decided in arrival order against it and
 * the batch's own effects.
 */
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
import type { ChoiceMethod } from './banner-config.js';
import { findChoiceStandings, type StoredChoiceStanding } from './choice-standing-repository.js';
import { insertCookieDecisions } from './decisions-repository.js';
import { cookieDecisionEvent } from './event.js';
import { leafOfCookieDecision } from './leaf.js';
import type { CookieDecisionsTable } from './table.js';

/** A choice as the writer takes it: plain data, so that it can cross to the writer thread. */
export interface CookieChoiceJob {
  tenantId: string;
  systemId: string;
  /** The system's public scope, as the webhook event names the system. */
  scope: string;
  configurationId: string;
  configurationVersion: number;
  contentSha256: string;
  visitorId: string;
  /** The visitor's keyed look-up (`visitorLookup`). */
  visitorLookup: string;
  eventId: string;
  method: ChoiceMethod;
  categories: Record<string, boolean>;
  locale: string;
  origin: string;
  /** The address as the tenant keeps it. */
  ip: string;
  userAgent: string | null;
}

/**
 * What became of a choice: `recorded`, or `replayed` (its event id was recorded before, with the
 * same choice); `conflict` when the event id was recorded with another choice.
 */
export type CookieChoiceOutcome =
  | { kind: 'recorded' | 'replayed'; decision: { id: string; decided_at: string } }
  | { kind: 'conflict' };

/** How the service hands a choice to the hot path's writer (src/write-path/writers.ts). */
export interface CookieChoiceWriter {
  write(job: CookieChoiceJob): Promise<CookieChoiceOutcome>;
}

export async function recordCookieChoices(
  trx: Trx,
  vault: SubjectVault,
  jobs: readonly CookieChoiceJob[],
): Promise<Settled<CookieChoiceOutcome>[]> {
  await lockKeys(
    trx,
    jobs.flatMap((job) => [
      `subject:${job.tenantId}:${job.visitorLookup}`,
      `cookie-event:${job.tenantId}:${job.systemId}:${job.eventId}`,
    ]),
  );
  const stored = await findChoiceStandings(
    trx,
    jobs.map((job) => ({
      tenant_id: job.tenantId,
      system_id: job.systemId,
      event_id: job.eventId,
      lookup: job.visitorLookup,
    })),
  );
  const batch = new ChoiceBatch(vault);
  const results = settleEach(jobs, stored, (job, standing) => batch.record(job, standing));
  await batch.write(trx);
  return results;
}

/** The batch so far: its rows, and the subjects and event ids it has seen. */
class ChoiceBatch {
  private readonly subjects = new Map<string, OpenSubject>();
  private readonly newSubjects: SubjectsTable[] = [];
  private readonly rows: CookieDecisionsTable[] = [];
  private readonly leaves: NewLeaf[] = [];
  private readonly eventsOut: NewEvent[] = [];
  /** By tenant, system and event id: what the batch recorded. */
  private readonly events = new Map<string, { id: string; decided_at: string; same: string }>();

  constructor(private readonly vault: SubjectVault) {}

  record(job: CookieChoiceJob, stored: StoredChoiceStanding): CookieChoiceOutcome {
    const eventName = `${job.tenantId}\u0000${job.systemId}\u0000${job.eventId}`;
    const same = sameness(job.method, job.categories);
    const earlier = this.events.get(eventName) ?? storedEvent(stored);
    if (earlier) {
      return earlier.same === same
        ? { kind: 'replayed', decision: { id: earlier.id, decided_at: earlier.decided_at } }
        : { kind: 'conflict' };
    }
    const now = nowIso();
    const subjectName = `${job.tenantId}\u0000${job.visitorLookup}`;
    let subject =
      this.subjects.get(subjectName) ?? openStoredSubject(this.vault, job.tenantId, stored);
    let created: SubjectsTable | undefined;
    if (!subject) {
      const fresh = newSubject(this.vault, job.tenantId, job.visitorId, job.visitorLookup, now);
      subject = fresh.subject;
      created = fresh.row;
    }
    const id = newId();
    const evidenceSalt = newSalt();
    const row: CookieDecisionsTable = {
      tenant_id: job.tenantId,
      id,
      system_id: job.systemId,
      configuration_id: job.configurationId,
      configuration_version: job.configurationVersion,
      content_sha256: job.contentSha256,
      subject_id: subject.id,
      event_id: job.eventId,
      method: job.method,
      categories: JSON.stringify(job.categories),
      locale: job.locale,
      origin: job.origin,
      personal: sealPersonal(subject.key, id, {
        customer_id: job.visitorId,
        ip: job.ip,
        user_agent: job.userAgent,
      }),
      evidence_salt: evidenceSalt,
      decided_at: now,
    };
    const leaf = leafOfCookieDecision(
      {
        ...row,
        categories: job.categories,
        visitor_id: job.visitorId,
        ip: job.ip,
        user_agent: job.userAgent,
      },
      subject.salt,
    );
    // Nothing above wrote: from here the choice is the batch's.
    if (created) this.newSubjects.push(created);
    this.subjects.set(subjectName, subject);
    this.rows.push(row);
    this.leaves.push({ log_id: job.tenantId, record_id: id, leaf, queued_at: now });
    this.events.set(eventName, { id, decided_at: now, same });
    if (stored.event_wanted) {
      this.eventsOut.push(
        cookieDecisionEvent(job.tenantId, subject, job.visitorId, {
          decision_id: id,
          system: job.scope,
          configuration_id: job.configurationId,
          configuration_version: job.configurationVersion,
          method: job.method,
          categories: job.categories,
          locale: job.locale,
          origin: job.origin,
          decided_at: now,
        }),
      );
    }
    return { kind: 'recorded', decision: { id, decided_at: now } };
  }

  async write(trx: Trx): Promise<void> {
    await storeNewSubjects(trx, this.newSubjects);
    await insertCookieDecisions(trx, this.rows);
    await writeJournal(trx, { leaves: this.leaves, events: this.eventsOut });
  }
}

/** The choice the store recorded under the event id, as a retry is compared with it. */
function storedEvent(stored: StoredChoiceStanding) {
  if (stored.earlier_id === null || stored.earlier_at === null) return undefined;
  const categories = JSON.parse(stored.earlier_categories ?? '{}') as Record<string, boolean>;
  return {
    id: stored.earlier_id,
    decided_at: stored.earlier_at,
    same: sameness(stored.earlier_method ?? 'custom', categories),
  };
}

/** What a retry must repeat to be the same choice. */
function sameness(method: ChoiceMethod, categories: Record<string, boolean>): string {
  const keys = Object.keys(categories).sort();
  return `${method} ${keys.map((k) => `${k}=${categories[k] ? 1 : 0}`).join(' ')}`;
}
