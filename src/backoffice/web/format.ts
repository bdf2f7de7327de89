import { type Html, html } from './html.js';

/** A stored ISO 8601 UTC time as people read it, still in UTC and still exact. */
export function time(iso: string | null | undefined): Html {
  if (!iso) return html`<span class="muted">—</span>`;
  const [day, clock] = iso.replace(/\.\d+Z$/, '').split('T');
  // Breaks, when it must, between the day and the time of day only.
  return html`<time datetime="${iso}"><span class="nowrap">${day}</span> <span class="nowrap">${clock} UTC</span></time>`;
}

export function badge(kind: string, label: string = kind): Html {
  return html`<span class="badge ${kind}">${label}</span>`;
}

export function count(n: number, one: string, many: string): string {
  return `${n.toLocaleString('en')} ${n === 1 ? one : many}`;
}
