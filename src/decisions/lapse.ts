import { addCalendarMonths } from '../platform/time.js';
import type { DecisionValue } from './table.js';

/** When a customer's `given` lapses under the template's validity period, and whether it has. */
export interface Lapse {
  /** True from the instant `expires_at` on: the customer is asked again. */
  expired: boolean;
  /** The `given`'s time plus the validity period in calendar months (UTC, `addCalendarMonths`). */
  expires_at: string;
}

/**
 * Whether the customer's most recent decision on a release still stands at the moment `at`
 * (ISO 8601 UTC), under the template's validity period: the one rule `pending`, `as-of`, the
 * customer's consents, the decision rules and the back-office all read. Only a `given` lapses: a
 * `reject` or `withdraw` is no consent to expire, so it stands as it is, and so does every
 * decision on a template with no validity period (undefined: nothing to say).
 */
export function lapseOf(
  decision: DecisionValue | null | undefined,
  decidedAt: string | null | undefined,
  validityMonths: number | null,
  at: string,
): Lapse | undefined {
  if (validityMonths === null || decision !== 'given' || !decidedAt) return undefined;
  const expiresAt = addCalendarMonths(decidedAt, validityMonths);
  return { expired: Date.parse(at) >= Date.parse(expiresAt), expires_at: expiresAt };
}
