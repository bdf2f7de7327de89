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
