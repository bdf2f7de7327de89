import { type Html, html } from './html.js';

const zoneFormats = new Map<string, Intl.DateTimeFormat>();

function zoneFormat(zone: string): Intl.DateTimeFormat {
  let format = zoneFormats.get(zone);
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
    zoneFormats.set(zone, format);
  }
  return format;
}

/** The day and time of day of an instant in an IANA zone, and the zone's offset then. */
function inZone(iso: string, zone: string): { day: string; clock: string; offset: string } {
  const parts: Record<string, string> = {};
  for (const part of zoneFormat(zone).formatToParts(new Date(iso))) parts[part.type] = part.value;
  return {
    day: `${parts.year}-${parts.month}-${parts.day}`,
    clock: `${parts.hour}:${parts.minute}:${parts.second}`,
    offset: parts.timeZoneName ?? zone,
  };
}

/**
 * A stored ISO 8601 UTC time as people read it: in UTC (`2026-01-02 03:04:05 UTC`), or in the
 * tenant's zone with its offset at that moment (`2026-01-02 10:04:05 GMT+7`). The `datetime`
 * attribute keeps the exact UTC instant.
 */
export function time(iso: string | null | undefined, zone = 'UTC'): Html {
  if (!iso) return html`<span class="muted">—</span>`;
  let [day, clock] = iso.replace(/\.\d+Z$/, '').split('T');
  let offset = 'UTC';
  if (zone !== 'UTC') ({ day, clock, offset } = inZone(iso, zone));
  // Breaks, when it must, between the day and the time of day only.
  return html`<time datetime="${iso}"><span class="nowrap">${day}</span> <span class="nowrap">${clock} ${offset}</span></time>`;
}

export function badge(kind: string, label: string = kind): Html {
  return html`<span class="badge ${kind}">${label}</span>`;
}

export function count(n: number, one: string, many: string): string {
  return `${n.toLocaleString('en')} ${n === 1 ? one : many}`;
}
