/**
 * `consent.lapsed`: a webhook event when a customer's `given` lapses under its template's
 * validity period (docs/webhooks.md). A pass every instance runs tells each lapse once, in the
 * transaction that moves the template's progress, under the template's lock: two instances never
 * tell one twice, and a pass that fails tells nothing and is run again.
 *
 * Progress is a place in the template's `given` decisions by `(decided_at, id)`: every one up to
 * it was looked at, and told if it was still the customer's latest. The lapse instant follows
 * the time given (plus the period in calendar months), so the pass stops at the first that has
 * not lapsed; a period changed keeps the place (a shorter one tells at once what it made lapse,
 * a longer one does not tell again what was told).
 */
import { anySubscriber, type NewEvent, writeJournal } from '../journal/index.js';
import type { Db, Trx } from '../platform/db.js';
import { newId, noId } from '../platform/ids.js';
import { tryLockKey } from '../platform/locks.js';
import { addCalendarMonths, nowIso } from '../platform/time.js';
import { openStoredSubject, personalReader, type SubjectVault } from '../subjects/index.js';
import { sealedCustomer } from './event.js';
import {
  findGivenBetween,
  findLapseProgress,
  findLapsingTemplates,
  findPeriodSetAt,
  saveLapseProgress,
} from './lapse-repository.js';

export const lapsedEventType = 'consent.lapsed';

/** Decisions read a page at a time. */
const pageSize = 500;

interface LapsingTemplate {
  tenant_id: string;
  id: string;
  code: string;
  validity_months: number | null;
  /** The place as the pass read it (null: none yet); re-read under the lock before it moves. */
  decided_through: string | null;
  through_id: string | null;
}

/** One pass over every template with a period: tells the lapses due by now; answers how many. */
export async function tellLapses(db: Db, vault: SubjectVault, now = nowIso()): Promise<number> {
  let told = 0;
  for (const template of await findLapsingTemplates(db)) {
    // Most passes find nothing due: one read, and no transaction, tells so.
    if (!(await firstHasLapsed(db, template, now))) continue;
    told += await db.transaction().execute((trx) => tellTemplateLapses(trx, vault, template, now));
  }
  return told;
}

const placeOf = (
  progress: { decided_through: string | null; through_id: string | null } | undefined,
) => ({
  at: progress?.decided_through ?? '',
  id: progress?.through_id ?? noId,
});

/** A `given` decided by then may have lapsed by `now` (however a month's end cut it short). */
const upToOf = (now: string, months: number) =>
  new Date(Date.parse(addCalendarMonths(now, -months)) + 3 * 86_400_000).toISOString();

async function firstHasLapsed(db: Db, t: LapsingTemplate, now: string): Promise<boolean> {
  const months = Number(t.validity_months);
  const [first] = await findGivenBetween(db, {
    tenantId: t.tenant_id,
    templateId: t.id,
    after: placeOf(t),
    upTo: upToOf(now, months),
    limit: 1,
  });
  return first !== undefined && addCalendarMonths(first.decided_at, months) <= now;
}

async function tellTemplateLapses(
  trx: Trx,
  vault: SubjectVault,
  t: LapsingTemplate,
  now: string,
): Promise<number> {
  const months = Number(t.validity_months);
  if (!(await tryLockKey(trx, `lapses:${t.tenant_id}:${t.id}`))) return 0;
  let place = placeOf(await findLapseProgress(trx, t.tenant_id, t.id));
  const wanted = await anySubscriber(trx, t.tenant_id, lapsedEventType, 'any');
  const open = personalReader(trx, vault, t.tenant_id);
  const periodSetAt = (await findPeriodSetAt(trx, t.tenant_id, t.id)) ?? '';
  let told = 0;
  for (let more = true; more; ) {
    const page = await findGivenBetween(trx, {
      tenantId: t.tenant_id,
      templateId: t.id,
      after: place,
      upTo: upToOf(now, months),
      limit: pageSize,
    });
    const looked = [];
    for (const row of page) {
      const expiresAt = addCalendarMonths(row.decided_at, months);
      if (expiresAt > now) break;
      looked.push({ row, expiresAt });
    }
    more = looked.length === pageSize;
    const last = looked.at(-1);
    if (!last) break;
    place = { at: last.row.decided_at, id: last.row.id };
    const due = looked.filter(({ row }) => row.last_decision_id === row.id);
    told += due.length;
    if (due.length === 0 || !wanted) continue;
    const opened = await open(due.map(({ row }) => row));
    const events: NewEvent[] = [];
    due.forEach(({ row, expiresAt }, i) => {
      // An erased customer has no key any more (and no latest decision): nothing to tell.
      const customerId = opened[i]?.personal?.customer_id;
      if (customerId === undefined || row.wrapped_key === null) return;
      const subject = openStoredSubject(vault, t.tenant_id, row);
      if (!subject) return;
      const id = newId();
      const data = {
        decision_id: row.id,
        template_code: t.code,
        consent_version_id: row.consent_version_id,
        version: row.version,
        decided_at: row.decided_at,
        expires_at: expiresAt,
        customer_sealed: sealedCustomer(subject.key, id, customerId),
      };
      events.push({
        tenant_id: t.tenant_id,
        id,
        type: lapsedEventType,
        record_id: null,
        subject_id: row.subject_id,
        data: JSON.stringify(data),
        // A lapse made by a period set or shortened happened when it was set.
        occurred_at: expiresAt < periodSetAt ? periodSetAt : expiresAt,
      });
    });
    await writeJournal(trx, { events });
  }
  await saveLapseProgress(trx, {
    tenant_id: t.tenant_id,
    template_id: t.id,
    decided_through: place.at,
    through_id: place.id,
  });
  return told;
}
