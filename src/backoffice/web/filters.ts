import type { FieldErrors } from './forms.js';
import { type Html, html } from './html.js';
import { isCalendarDay, startOfDayIn } from './time-zone.js';

/**
 * The query string of a filtered list (empty values left out), with more parameters such as
 * the `before` of the next page: `?a=1&b=2`, or nothing.
 */
export function queryString(
  values: Readonly<Record<string, string>>,
  more: Readonly<Record<string, string>> = {},
): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries({ ...values, ...more })) {
    if (value) query.set(name, value);
  }
  const text = query.toString();
  return text ? `?${text}` : '';
}

/** The position a keyset page starts before, `<ISO time>~<id>`, read from its query value. */
export function keysetPosition(value: string): { at: string; id: string } | undefined {
  const match = /^(\d{4}-\d{2}-\d{2}T[\d:.]+Z)~([0-9a-f-]{36})$/.exec(value);
  return match?.[1] && match[2] ? { at: match[1], id: match[2] } : undefined;
}

/**
 * The one day rule of every filter and export, said under its day fields: days are calendar days
 * in the zone (the tenant's), the last one included.
 */
export function dayRuleNote(zone: string): Html {
  return html`<small class="day-rule">Days are those of ${zone}: from the start of the first day to the end of the last, in that time zone.</small>`;
}

/**
 * The one reading of days of every filter and export of the back-office (the Decisions list and
 * its CSV, the export, the audit log): a range of days typed as `from` and `to` (each
 * `YYYY-MM-DD` or empty), as instants in the zone, `[from, until)`: `from` where its day starts,
 * `until` where the day after `to` starts (the last day is included); or the fields' messages (a
 * day that is none, a range that ends before it starts).
 */
export function dayRange(
  values: { from: string; to: string },
  zone: string,
): { from?: string; until?: string } | { errors: FieldErrors } {
  const errors: FieldErrors = {};
  for (const name of ['from', 'to'] as const) {
    if (values[name] && !isCalendarDay(values[name])) errors[name] = 'A day of the calendar.';
  }
  if (!errors.from && !errors.to && values.from && values.to && values.to < values.from) {
    errors.to = 'The last day comes on or after the first.';
  }
  if (Object.keys(errors).length > 0) return { errors };
  return {
    ...(values.from ? { from: startOfDayIn(values.from, zone) } : {}),
    ...(values.to ? { until: startOfDayIn(values.to, zone, 1) } : {}),
  };
}
