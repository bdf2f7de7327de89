import { AppError } from './errors.js';

/**
 * Timestamps are ISO 8601 UTC text with milliseconds (`2026-01-31T12:00:00.000Z`), fixed-width,
 * so text order is time order: stored so on every store, but for PostgreSQL's decision times
 * since migration 0061 (`timestamptz`, which the connections read back as this same text:
 * postgres.ts), and compared with either as a parameter.
 */
export function nowIso(): string {
  return new Date().toISOString();
}

/** A time as PostgreSQL writes one in JSON (`2026-01-31T19:00:00.5+07:00`), in the form of `nowIso`. */
export function isoFromJson(time: string): string {
  return new Date(time).toISOString();
}

/** The instant `days` whole days of 24 hours after `iso`, in the form of `nowIso`. */
export function addDaysIso(iso: string, days: number): string {
  return new Date(Date.parse(iso) + days * 86_400_000).toISOString();
}

/**
 * The instant `months` calendar months after `iso`, in UTC: the same day of the month and time
 * of day, or the last day of the target month when it has no such day (31 January + 1 month is
 * 28 February, or the 29th in a leap year, at the same time of day). The answer is in the form
 * of `nowIso`.
 */
export function addCalendarMonths(iso: string, months: number): string {
  const from = new Date(iso);
  const target = from.getUTCMonth() + months;
  const year = from.getUTCFullYear() + Math.floor(target / 12);
  const month = ((target % 12) + 12) % 12;
  const result = new Date(from.getTime());
  // The day first set to 1, so that setting the month never overflows into the next one.
  result.setUTCFullYear(year, month, 1);
  result.setUTCDate(Math.min(from.getUTCDate(), daysInMonth(year, month)));
  return result.toISOString();
}

function daysInMonth(year: number, month: number): number {
  const last = new Date(0);
  last.setUTCFullYear(year, month + 1, 0);
  return last.getUTCDate();
}

/** The earliest time a decision's can be compared with on every store (`decisionTimeBound`). */
const earliestDecisionBound = '0001-01-01T00:00:00.000Z';

/**
 * `at` (in the form of `nowIso`) as a bound to compare decisions' times with: no earlier than
 * the year 1. A store that keeps them as `timestamptz` (src/platform/id-type.ts) reads no year 0
 * (ISO 8601's 1 BC), and no decision is that old: each is dated by the clock that recorded it.
 */
export function decisionTimeBound(at: string): string {
  return at < earliestDecisionBound ? earliestDecisionBound : at;
}

const earliestStored = Date.parse('0000-01-01T00:00:00.000Z');
const latestStored = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * `at` in the form times are stored in (UTC, milliseconds), so that it compares with them as
 * text. Digits past the millisecond are dropped, which keeps "at or before" exact; an offset that
 * carries the moment outside the years 0000 to 9999 is held at their edge.
 */
export function storedInstant(at: string, field = 'querystring.at'): string {
  const ms = Date.parse(at);
  if (Number.isNaN(ms)) {
    throw new AppError('invalidRequest', {
      details: [{ field, issue: 'must be an ISO 8601 date-time with a time zone' }],
    });
  }
  return new Date(Math.min(Math.max(ms, earliestStored), latestStored)).toISOString();
}
