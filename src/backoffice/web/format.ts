import { type Html, html } from './html.js';
import { dayIn, partsIn } from './time-zone.js';

/** The day and time of day of an instant in an IANA zone, and the zone's offset then. */
function inZone(iso: string, zone: string): { day: string; clock: string; offset: string } {
  const p = partsIn(Date.parse(iso), zone);
  return {
    day: dayIn(iso, zone),
    clock: `${p.hour}:${p.minute}:${p.second}`,
    offset: p.timeZoneName ?? zone,
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
