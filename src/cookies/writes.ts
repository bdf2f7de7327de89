/**
 * Visitors' choices as a kind of record's writes (src/record-kinds): each under its visitor's
 * lock and its event id's, a retry (same event id) answered with its first record, a new visitor
 * given a subject of their own. The store is read once for the whole batch
 * (choice-standing-repository.ts), then each choice is decided in arrival order against it and
 * the batch's own effects; the generic recorder writes the leaves and events.
 */
import type { Trx } from '../platform/db.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/time.js';
import { newSalt, subjectCommitment } from '../proof/index.js';
import type { KindBatch, KindWriter, KindWrites, SubjectBook } from '../record-kinds/index.js';
import { sealPersonal } from '../subjects/index.js';
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
  /** Where the visitor was, when known. */
  region: string | null;
  /** The A/B variant the visitor saw, for a configuration with variants. */
  variant: string | null;
  /**
   * The customer the visitor is signed in as (their site's token, customer-tokens.ts): their id
   * and keyed look-up; null for a visitor no one signed in.
   */
  customer: { id: string; lookup: string } | null;
}

/**
 * What became of a choice: `recorded`, or `replayed` (its event id was recorded before, with the
 * same choice); `conflict` when the event id was recorded with another choice.
 */
export type CookieChoiceOutcome =
  | { kind: 'recorded' | 'replayed'; decision: { id: string; decided_at: string } }
  | { kind: 'conflict' };

/** How the service hands a choice to the write path. */
export type CookieChoiceWriter = KindWriter<CookieChoiceJob, CookieChoiceOutcome>;

/** How the write path records visitors' choices (the generic recorder runs it). */
export const choiceWrites: KindWrites<CookieChoiceJob, CookieChoiceOutcome, StoredChoiceStanding> =
  {
    subjectOf: (job) => ({ tenantId: job.tenantId, lookup: job.visitorLookup }),
    // A signed-in visitor's customer may be new: their subject is made under their lock.
    otherSubjectOf: (job) => job.customer?.lookup,
    // A retry of the same choice (its event id) waits for the first, then sees its record.
    locks: (job) => [`cookie-event:${job.tenantId}:${job.systemId}:${job.eventId}`],
    standings: (trx, jobs) =>
      findChoiceStandings(
        trx,
        jobs.map((job) => ({
          tenant_id: job.tenantId,
          system_id: job.systemId,
          event_id: job.eventId,
          lookup: job.visitorLookup,
          customer_lookup: job.customer?.lookup ?? null,
        })),
      ),
    batch: () => new ChoiceBatch(),
  };

/** The batch so far: its rows, and the event ids it has recorded. */
class ChoiceBatch implements KindBatch<CookieChoiceJob, CookieChoiceOutcome, StoredChoiceStanding> {
  private readonly rows: CookieDecisionsTable[] = [];
  /** By tenant, system and event id: what the batch recorded. */
  private readonly recorded = new Map<string, { id: string; decided_at: string; same: string }>();

  decide(job: CookieChoiceJob, stored: StoredChoiceStanding, subjects: SubjectBook) {
    const eventName = `${job.tenantId}\u0000${job.systemId}\u0000${job.eventId}`;
    const same = sameness(job.method, job.categories);
    const earlier = this.recorded.get(eventName) ?? storedEvent(stored);
    if (earlier) {
      return {
        outcome:
          earlier.same === same
            ? {
                kind: 'replayed' as const,
                decision: { id: earlier.id, decided_at: earlier.decided_at },
              }
            : { kind: 'conflict' as const },
      };
    }
    const now = nowIso();
    const known = subjects.find(job.tenantId, job.visitorLookup, stored);
    const fresh = known
      ? undefined
      : subjects.create(job.tenantId, job.visitorId, job.visitorLookup, now);
    const subject = known ?? (fresh?.subject as NonNullable<typeof known>);
    const customer = job.customer && customerOf(job, job.customer, stored, subjects, now);
    const id = newId();
    const row: CookieDecisionsTable = {
      tenant_id: job.tenantId,
      id,
      system_id: job.systemId,
      configuration_id: job.configurationId,
      configuration_version: job.configurationVersion,
      subject_id: subject.id,
      event_id: job.eventId,
      method: job.method,
      categories: JSON.stringify(job.categories),
      locale: job.locale,
      origin: job.origin,
      region: job.region,
      variant: job.variant,
      customer_subject_id: customer?.subject.id ?? null,
      customer: customer?.commitment ?? null,
      personal: sealPersonal(subject.key, id, {
        customer_id: job.visitorId,
        ip: job.ip,
        user_agent: job.userAgent,
      }),
      evidence_salt: newSalt(),
      decided_at: now,
    };
    const leaf = leafOfCookieDecision(
      {
        ...row,
        content_sha256: job.contentSha256,
        categories: job.categories,
        visitor_id: job.visitorId,
        ip: job.ip,
        user_agent: job.userAgent,
      },
      subject.salt,
    );
    return {
      outcome: { kind: 'recorded' as const, decision: { id, decided_at: now } },
      record: {
        tenantId: job.tenantId,
        lookup: job.visitorLookup,
        id,
        at: now,
        subject,
        ...(fresh ? { created: fresh.row } : {}),
        ...(customer ? { other: customer.other } : {}),
        leaf,
        event: (owner: { id: string; key: Buffer }) =>
          cookieDecisionEvent(job.tenantId, owner, job.visitorId, {
            decision_id: id,
            system: job.scope,
            configuration_id: job.configurationId,
            configuration_version: job.configurationVersion,
            method: job.method,
            categories: job.categories,
            locale: job.locale,
            origin: job.origin,
            ...(job.region ? { region: job.region } : {}),
            ...(job.variant ? { variant: job.variant } : {}),
            decided_at: now,
          }),
      },
      commit: () => {
        this.rows.push(row);
        this.recorded.set(eventName, { id, decided_at: now, same });
      },
    };
  }

  async write(trx: Trx): Promise<void> {
    await insertCookieDecisions(trx, this.rows);
  }
}

/**
 * The signed-in customer's subject: the batch's or the store's, else a new one (a customer seen
 * first on the site), and the subject commitment the choice's evidence commits to.
 */
function customerOf(
  job: CookieChoiceJob,
  customer: { id: string; lookup: string },
  stored: StoredChoiceStanding,
  subjects: SubjectBook,
  now: string,
) {
  const known = subjects.find(job.tenantId, customer.lookup, {
    subject_id: stored.customer_subject_id,
    wrapped_key: stored.customer_wrapped_key,
    salt: stored.customer_salt,
  });
  const fresh = known
    ? undefined
    : subjects.create(job.tenantId, customer.id, customer.lookup, now);
  const subject = known ?? (fresh?.subject as NonNullable<typeof known>);
  return {
    subject,
    commitment: subjectCommitment(subject.salt, customer.id),
    other: { lookup: customer.lookup, subject, ...(fresh ? { created: fresh.row } : {}) },
  };
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
