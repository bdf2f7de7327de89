/**
 * Calendar days in a time zone: the day an instant falls on where the tenant is, and whole days
 * counted between two of them (a data-subject request's due date and its days left).
 */

const formats = new Map<string, Intl.DateTimeFormat>();

/** An instant's calendar fields in a zone (`year`, `month`, …, `timeZoneName` as `GMT+7`). */
export function partsIn(instant: number, zone: string): Record<string, string> {
  let format = formats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'shortOffset',
    });
    formats.set(zone, format);
  }
  const parts: Record<string, string> = {};
  for (const part of format.formatToParts(new Date(instant))) parts[part.type] = part.value;
  return parts;
}

/** The calendar day (`YYYY-MM-DD`) an instant (ISO 8601) falls on in the zone. */
export function dayIn(iso: string, zone: string): string {
  const p = partsIn(Date.parse(iso), zone);
  return `${p.year}-${p.month}-${p.day}`;
}

/** The day (`YYYY-MM-DD`) `days` after `day` (before, when negative): calendar days, no zone. */
export function addDays(day: string, days: number): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}

/** Whole calendar days from `from` to `to` (`YYYY-MM-DD` each): negative when `to` is earlier. */
export function daysBetween(from: string, to: string): number {
  const at = (day: string) => {
    const [y, m, d] = day.split('-').map(Number) as [number, number, number];
    return Date.UTC(y, m - 1, d);
  };
  return Math.round((at(to) - at(from)) / 86_400_000);
}

/** The zone's offset from UTC at an instant, in milliseconds (east positive). */
function offsetAt(instant: number, zone: string): number {
  const p = partsIn(instant, zone);
  const asUtc = Date.UTC(
    Number(p.year),
    Number(p.month) - 1,
    Number(p.day),
    Number(p.hour),
    Number(p.minute),
    Number(p.second),
  );
  return asUtc - (instant - (instant % 1000));
}

/** Whether `YYYY-MM-DD` names a day of the calendar (not 2026-02-30). */
export function isCalendarDay(day: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return false;
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/** The instant (ISO 8601 UTC) the day starts in the zone; `days` later for the end of a range. */
export function startOfDayIn(day: string, zone: string, days = 0): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(instantOfWallTime(Date.UTC(y, m - 1, d + days), zone)).toISOString();
}

/** The instant of a wall-clock time in the zone, given as if it were UTC. */
export function instantOfWallTime(wallAsUtc: number, zone: string): number {
  // The wall time less the offset then; the offset is read twice because it may change between
  // the guess and the answer (a day on which the clocks move).
  const guess = wallAsUtc - offsetAt(wallAsUtc, zone);
  return wallAsUtc - offsetAt(guess, zone);
}
