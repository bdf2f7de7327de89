import type { CookieDecisionView } from '../../cookies/index.js';
import type { CsvColumn } from '../web/csv.js';
import { dayIn } from '../web/time-zone.js';

/**
 * The columns of the cookie decisions' download, in docs/backoffice.md: the choice, one column
 * per category of the system's published configurations (`category_<key>`: `granted`, `denied`,
 * or empty when the choice's configuration had no such category), then where, who and when.
 * `decided_at` is the exact instant in UTC; `decided_on` its day in the tenant's zone, named in
 * `time_zone`: the day the filters read. `region` (where the visitor was, when known) comes last.
 */
export function cookieDecisionColumns(
  categories: readonly string[],
  zone: string,
): ReadonlyArray<CsvColumn<CookieDecisionView>> {
  return [
    ['decision_id', (r) => r.decision_id],
    ['system', (r) => r.system],
    ['configuration_id', (r) => r.configuration_id],
    ['configuration_version', (r) => r.configuration_version],
    ['method', (r) => r.method],
    ...categories.map(
      (key): CsvColumn<CookieDecisionView> => [
        `category_${key}`,
        (r) => {
          const granted = r.categories[key];
          return granted === undefined ? null : granted ? 'granted' : 'denied';
        },
      ],
    ),
    ['locale', (r) => r.locale],
    ['origin', (r) => r.origin],
    ['visitor_id', (r) => r.visitor_id],
    ['ip', (r) => r.ip],
    ['user_agent', (r) => r.user_agent],
    ['decided_at', (r) => r.decided_at],
    ['decided_on', (r) => dayIn(r.decided_at, zone)],
    ['time_zone', () => zone],
    // Last, so that the columns before it stay where a reader of older downloads expects them.
    ['region', (r) => r.region ?? null],
    ['variant', (r) => r.variant ?? null],
  ];
}
