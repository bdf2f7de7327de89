/**
 * Timestamps are stored as ISO 8601 UTC text with milliseconds (`2026-01-31T12:00:00.000Z`):
 * the same bytes on every store, and fixed-width, so text order is time order.
 */
export function nowIso(): string {
  return new Date().toISOString();
}
