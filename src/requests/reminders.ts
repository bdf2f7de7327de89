/**
 * Reminders of data-subject requests' due dates (docs/requests.md, "Reminders"): an e-mail to
 * the request's assignee (or, with none, to everyone who may answer requests) when it is due in
 * 7 days, when it is due tomorrow or today, and once it is overdue; each once, by whichever
 * instance's pass takes it first. The e-mail names the request's kind, due date and page,
 * never the customer.
 */
import { activeUsersWith, getTeamMember } from '../accounts/index.js';
import { addDays, dayIn } from '../platform/calendar.js';
import type { Executor } from '../platform/db.js';
import type { Mailer } from '../platform/mail.js';
import { nowIso } from '../platform/time.js';
import { getTenantSettings } from '../tenants/index.js';
import { clockOf } from './clock.js';
import { claimReminder, openRequestsDueBy, releaseReminder } from './repository.js';
import { requestKinds } from './rules.js';
import type { SubjectRequestRow } from './table.js';

export type Reminder = 'due-in-7-days' | 'due-tomorrow' | 'overdue';

/** The reminder a request's days left call for, or none yet. */
export function reminderFor(daysLeft: number): Reminder | undefined {
  if (daysLeft < 0) return 'overdue';
  if (daysLeft <= 1) return 'due-tomorrow';
  if (daysLeft <= 7) return 'due-in-7-days';
  return undefined;
}

const subjects: Record<Reminder, string> = {
  'due-in-7-days': 'A data-subject request is due in 7 days',
  'due-tomorrow': 'A data-subject request is due tomorrow',
  overdue: 'A data-subject request is overdue',
};

/** How many requests a pass looks at, at most (the most urgent first). */
const requestsPerPass = 500;

/**
 * One pass: every open request due within a week (a day more, for the zones east of UTC) whose
 * reminder is due and not yet sent. Answers how many e-mails went out. A reminder that could
 * not be sent is given back for the next pass.
 */
export async function remindDueRequests(
  db: Executor,
  mailer: Mailer,
  pages: (requestId: string) => string,
  now = nowIso(),
  perPass = requestsPerPass,
): Promise<number> {
  const zones = new Map<string, string>();
  let sent = 0;
  const horizon = addDays(dayIn(now, 'UTC'), 8);
  for (const request of await openRequestsDueBy(db, horizon, perPass)) {
    let zone = zones.get(request.tenant_id);
    if (zone === undefined) {
      zone = (await getTenantSettings(db, request.tenant_id)).timeZone;
      zones.set(request.tenant_id, zone);
    }
    const { days_left: left } = clockOf(request, zone, now);
    const reminder = left === null ? undefined : reminderFor(left);
    if (!reminder) continue;
    const key = { tenant_id: request.tenant_id, request_id: request.id, reminder };
    if (!(await claimReminder(db, { ...key, sent_at: now }))) continue;
    try {
      for (const to of await recipientsOf(db, request)) {
        await mailer.send({
          to,
          subject: subjects[reminder],
          text: textOf(request, reminder, left ?? 0, pages(request.id)),
        });
        sent += 1;
      }
    } catch (error) {
      await releaseReminder(db, key);
      throw error;
    }
  }
  return sent;
}

/** The assignee, while active; else everyone active who may answer requests. */
async function recipientsOf(db: Executor, request: SubjectRequestRow): Promise<string[]> {
  if (request.assignee_id) {
    const assignee = await getTeamMember(db, request.tenant_id, request.assignee_id).catch(
      () => undefined,
    );
    if (assignee?.status === 'active') return [assignee.email];
  }
  return (await activeUsersWith(db, request.tenant_id, 'requests:approve')).map((u) => u.email);
}

function textOf(request: SubjectRequestRow, reminder: Reminder, left: number, page: string) {
  const kind = requestKinds[request.kind as keyof typeof requestKinds] ?? request.kind;
  const when =
    reminder === 'overdue'
      ? `was due on ${request.due_on}, ${-left} ${-left === 1 ? 'day' : 'days'} ago`
      : left === 0
        ? `is due today, ${request.due_on}`
        : `is due on ${request.due_on}, in ${left} ${left === 1 ? 'day' : 'days'}`;
  return `A data-subject request (${kind}), received ${request.received_at.slice(0, 10)}, ${when}.\n\nSee it and answer it here:\n\n  ${page}\n`;
}
