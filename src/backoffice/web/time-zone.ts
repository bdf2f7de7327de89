/**
 * Days as people in a time zone mean them, as UTC instants: a date filter's "from 2026-03-29"
 * in Berlin starts at 2026-03-28T23:00:00Z, and that day has 23 hours.
 */

import { instantOfWallTime, isCalendarDay } from '../../platform/calendar.js';

export { dayIn, isCalendarDay, partsIn, startOfDayIn } from '../../platform/calendar.js';

/**
 * The instant (ISO 8601 UTC) a wall-clock time (`YYYY-MM-DDTHH:MM`, as a `datetime-local` field
 * sends it, or with `:SS`) names in the zone; undefined when it is no such time. A time the clocks skip (02:30
 * on a spring-forward night) is read as after the change; one they pass twice, as the later.
 */
export function instantOfLocalTime(local: string, zone: string): string | undefined {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(local);
  if (!match || !isCalendarDay(match[1] as string)) return undefined;
  const [hour, minute, second] = [Number(match[2]), Number(match[3]), Number(match[4] ?? 0)];
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const [y, m, d] = (match[1] as string).split('-').map(Number) as [number, number, number];
  const wall = Date.UTC(y, m - 1, d, hour, minute, second);
  return new Date(instantOfWallTime(wall, zone)).toISOString();
}

/**
 * The current IANA name of each zone the runtime's ICU still lists under an older one: CLDR
 * keeps a zone's first name as its id for good (`Asia/Calcutta`), where the IANA database has
 * since renamed it (`Asia/Kolkata`); both names work with `Intl`. From CLDR's
 * `common/bcp47/timezone.xml`, whose `iana` attribute gives the current name.
 */
const currentNames: ReadonlyMap<string, string> = new Map([
  ['Africa/Asmera', 'Africa/Asmara'],
  ['America/Buenos_Aires', 'America/Argentina/Buenos_Aires'],
  ['America/Catamarca', 'America/Argentina/Catamarca'],
  ['America/Coral_Harbour', 'America/Atikokan'],
  ['America/Cordoba', 'America/Argentina/Cordoba'],
  ['America/Godthab', 'America/Nuuk'],
  ['America/Indianapolis', 'America/Indiana/Indianapolis'],
  ['America/Jujuy', 'America/Argentina/Jujuy'],
  ['America/Louisville', 'America/Kentucky/Louisville'],
  ['America/Mendoza', 'America/Argentina/Mendoza'],
  ['Asia/Calcutta', 'Asia/Kolkata'],
  ['Asia/Katmandu', 'Asia/Kathmandu'],
  ['Asia/Rangoon', 'Asia/Yangon'],
  ['Asia/Saigon', 'Asia/Ho_Chi_Minh'],
  ['Atlantic/Faeroe', 'Atlantic/Faroe'],
  ['Europe/Kiev', 'Europe/Kyiv'],
  ['Pacific/Enderbury', 'Pacific/Kanton'],
  ['Pacific/Ponape', 'Pacific/Pohnpei'],
  ['Pacific/Truk', 'Pacific/Chuuk'],
]);

/** A zone's current IANA name (`Asia/Calcutta` -> `Asia/Kolkata`); any other name as it is. */
export function currentZoneName(zone: string): string {
  return currentNames.get(zone) ?? zone;
}

/**
 * The zones a tenant may choose, by their current IANA names, sorted: UTC (which the runtime's
 * list leaves out) and every zone the runtime knows.
 */
export const zoneChoices: readonly string[] = [
  'UTC',
  ...[...new Set(Intl.supportedValuesOf('timeZone').map(currentZoneName))].sort(),
];
const choosable = new Set(zoneChoices);

/**
 * The zone a form sent, by its current name, when it is one to choose (an old name, as a page
 * made before the rename sends it, is taken as its current one); undefined otherwise.
 */
export function chosenZone(value: string): string | undefined {
  const zone = currentZoneName(value);
  return choosable.has(zone) ? zone : undefined;
}
