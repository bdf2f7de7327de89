/** A request's clock (PDPA section 30's 30 days): its due date, and its days left, in a zone. */
import { addDays, dayIn, daysBetween } from '../platform/calendar.js';
import { nowIso } from '../platform/time.js';
import { dueAfterDays, openStatuses, type RequestStep } from './rules.js';
import type { SubjectRequestRow } from './table.js';

/** The due date of a request received at `receivedAt`: 30 days after that day in the zone. */
export function dueOn(receivedAt: string, timeZone: string): string {
  return addDays(dayIn(receivedAt, timeZone), dueAfterDays);
}

/** A request as the API and the back-office show it: its clock in the tenant's time zone. */
export interface RequestClock {
  /** Whole days from today (in the tenant's zone) to the due date; negative once overdue. */
  days_left: number | null;
  overdue: boolean;
}

/** The clock of a request today in the zone: none once it is closed. */
export function clockOf(
  request: Pick<SubjectRequestRow, 'status' | 'due_on'>,
  timeZone: string,
  now = nowIso(),
): RequestClock {
  if (!openStatuses.includes(request.status as RequestStep)) {
    return { days_left: null, overdue: false };
  }
  const left = daysBetween(dayIn(now, timeZone), request.due_on);
  return { days_left: left, overdue: left < 0 };
}
