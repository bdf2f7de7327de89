/**
 * `addCalendarMonths`, the boundary of a template's validity period: fixed vectors, written out
 * by hand from the calendar. No store: it is a function of its inputs.
 */
import { describe, expect, it } from 'vitest';
import { addCalendarMonths } from '../../src/platform/time.js';

const vectors: [from: string, months: number, to: string][] = [
  // The same day of the month and time of day.
  ['2026-03-15T08:30:00.000Z', 1, '2026-04-15T08:30:00.000Z'],
  ['2026-03-15T08:30:00.000Z', 12, '2027-03-15T08:30:00.000Z'],
  ['2026-11-30T23:59:59.999Z', 2, '2027-01-30T23:59:59.999Z'],
  ['2026-12-01T00:00:00.000Z', 1, '2027-01-01T00:00:00.000Z'],
  // A day the target month lacks: its last day, at the same time of day.
  ['2026-01-31T10:00:00.000Z', 1, '2026-02-28T10:00:00.000Z'],
  ['2028-01-31T10:00:00.000Z', 1, '2028-02-29T10:00:00.000Z'],
  ['2026-03-31T00:00:00.000Z', 1, '2026-04-30T00:00:00.000Z'],
  ['2026-08-31T12:00:00.000Z', 3, '2026-11-30T12:00:00.000Z'],
  ['2028-02-29T23:30:00.000Z', 12, '2029-02-28T23:30:00.000Z'],
  ['2028-02-29T23:30:00.000Z', 48, '2032-02-29T23:30:00.000Z'],
  // Never carried into the month after.
  ['2026-01-29T00:00:00.000Z', 1, '2026-02-28T00:00:00.000Z'],
  ['2026-01-30T00:00:00.000Z', 1, '2026-02-28T00:00:00.000Z'],
  // The longest period a template may set.
  ['2026-05-31T06:00:00.000Z', 120, '2036-05-31T06:00:00.000Z'],
];

describe('addCalendarMonths', () => {
  it.each(vectors)('%s plus %i months is %s', (from, months, to) => {
    expect(addCalendarMonths(from, months)).toBe(to);
  });
});
