import type { ActedBy } from '../../proof/index.js';
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

/**
 * Who acted on a decision, in words (PDPA section 20): "parent (parent-1001), for a subject under
 * 10" or "the subject, aged 10-19, with the co-consent of parent (parent-7731)".
 */
export function actedByText(acted: ActedBy): string {
  const who = (role: string, reference: string | undefined) =>
    role === 'subject' ? 'the subject' : `${role}${reference ? ` (${reference})` : ''}`;
  const basis = [
    acted.age_band === undefined ? '' : `age band ${acted.age_band}`,
    acted.court_order === undefined ? '' : `court order ${acted.court_order}`,
  ]
    .filter((part) => part !== '')
    .join(', ');
  const co = acted.co_consent
    ? `, with the co-consent of ${who(acted.co_consent.role, acted.co_consent.reference)}`
    : '';
  return `${who(acted.role, acted.reference)}${basis ? ` (${basis})` : ''}${co}`;
}
