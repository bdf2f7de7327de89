/**
 * Days as a fixed-offset zone counts them (UTC, Bangkok's UTC+7: neither keeps summer time),
 * computed here and not by the service's calendar, for tests that check a request's days left.
 * A check that may straddle midnight reads the day before and after, and takes either.
 */
export function dayAt(offsetHours: number, at = Date.now()): string {
  return new Date(at + offsetHours * 3_600_000).toISOString().slice(0, 10);
}

/** Whole days from one `YYYY-MM-DD` to another. */
export function daysFrom(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

/** The days left to `due` as seen on either day of a check that began on `before`. */
export function daysLeftSeen(due: string, before: string, offsetHours: number): number[] {
  return [...new Set([daysFrom(before, due), daysFrom(dayAt(offsetHours), due)])];
}
