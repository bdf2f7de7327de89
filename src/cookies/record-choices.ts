/**
 * Records visitors' choices in the caller's transaction, beside the decisions of the same batch
 * (src/hot-path.ts): each under its visitor's lock, a retry (same event id) answered with its
 * first record, a new visitor given a subject of their own, and each choice's leaf queued for
 * the tenant's decision log in the same transaction.
 */
import { anySubscriber, type NewEvent, type NewLeaf, writeJournal } from '../journal/index.js';
import type { Trx } from '../platform/db.js';
import type { Settled } from '../platform/group-commit.js';
import { newId } from '../platform/ids.js';
import { lockKeys } from '../platform/locks.js';
import { nowIso } from '../platform/time.js';
import { newSalt } from '../proof/index.js';
import type { SubjectsTable, SubjectVault } from '../subjects/index.js';
import {
  findLiveSubjectRow,
  newSubject,
  type OpenSubject,
  openSubject,
  sealPersonal,
  storeNewSubjects,
} from '../subjects/index.js';
import type { ChoiceMethod } from './banner-config.js';
import { findByEventIds, insertCookieDecisions } from './decisions-repository.js';
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

/** How the service hands a choice to the hot path's writer (src/writers.ts). */
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
  const batch = new ChoiceBatch(trx, vault);
  const results: Settled<CookieChoiceOutcome>[] = [];
  for (const job of jobs) {
    try {
      results.push({ ok: true, value: await batch.record(job) });
    } catch (error) {
      results.push({ ok: false, error });
    }
  }
  await batch.write();
  return results;
}

/** The batch so far: its rows, and the subjects and event ids it has seen. */
class ChoiceBatch {
  private readonly subjects = new Map<string, OpenSubject>();
  private readonly newSubjects: SubjectsTable[] = [];
  private readonly rows: CookieDecisionsTable[] = [];
  private readonly leaves: NewLeaf[] = [];
  private readonly eventsOut: NewEvent[] = [];
  /** By tenant: whether an endpoint subscribes to cookie decisions (asked once a batch). */
  private readonly wanted = new Map<string, boolean>();
  /** By tenant, system and event id: what the batch or the store recorded. */
  private readonly events = new Map<string, { id: string; decided_at: string; same: string }>();

  constructor(
    private readonly trx: Trx,
    private readonly vault: SubjectVault,
  ) {}

  async record(job: CookieChoiceJob): Promise<CookieChoiceOutcome> {
    const eventName = `${job.tenantId}\u0000${job.systemId}\u0000${job.eventId}`;
    const same = sameness(job.method, job.categories);
    const earlier = this.events.get(eventName) ?? (await this.storedEvent(job, eventName));
    if (earlier) {
      return earlier.same === same
        ? { kind: 'replayed', decision: { id: earlier.id, decided_at: earlier.decided_at } }
        : { kind: 'conflict' };
    }
    const now = nowIso();
    const subjectName = `${job.tenantId}\u0000${job.visitorLookup}`;
    let subject = this.subjects.get(subjectName) ?? (await this.storedSubject(job));
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
    if (await this.eventWanted(job.tenantId)) {
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

  private async eventWanted(tenantId: string): Promise<boolean> {
    let wanted = this.wanted.get(tenantId);
    if (wanted === undefined) {
      wanted = await anySubscriber(this.trx, tenantId, 'cookie_decision.recorded', 'any');
      this.wanted.set(tenantId, wanted);
    }
    return wanted;
  }

  private async storedEvent(job: CookieChoiceJob, eventName: string) {
    const [found] = await findByEventIds(this.trx, job.tenantId, job.systemId, [job.eventId]);
    if (!found) return undefined;
    const earlier = {
      id: found.id,
      decided_at: found.decided_at,
      same: sameness(found.method, JSON.parse(found.categories) as Record<string, boolean>),
    };
    this.events.set(eventName, earlier);
    return earlier;
  }

  private async storedSubject(job: CookieChoiceJob): Promise<OpenSubject | undefined> {
    const row = await findLiveSubjectRow(this.trx, job.tenantId, job.visitorLookup);
    return row ? openSubject(this.vault, job.tenantId, row) : undefined;
  }

  async write(): Promise<void> {
    await storeNewSubjects(this.trx, this.newSubjects);
    await insertCookieDecisions(this.trx, this.rows);
    await writeJournal(this.trx, { leaves: this.leaves, events: this.eventsOut });
  }
}

/** What a retry must repeat to be the same choice. */
function sameness(method: ChoiceMethod, categories: Record<string, boolean>): string {
  const keys = Object.keys(categories).sort();
  return `${method} ${keys.map((k) => `${k}=${categories[k] ? 1 : 0}`).join(' ')}`;
}
