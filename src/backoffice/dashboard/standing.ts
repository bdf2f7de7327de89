import type { VersionStanding } from '../../records/index.js';
import { count } from '../web/format.js';
import { type Html, html } from '../web/html.js';

/**
 * Where the customers of a template stand on its latest version: by their last decision on it,
 * and those who decided on an earlier version only (pending: the API answers `accepted: false`
 * for them). The share that gave consent is of those who decided on the latest version.
 */
export function latestStanding(
  standing: VersionStanding,
  customers: number,
  latest: { version: number; tag: string },
): Html {
  const decided = standing.given + standing.reject + standing.withdraw;
  const pending = Math.max(0, customers - decided);
  const share =
    decided === 0
      ? 'No customer has decided on it yet.'
      : `${Math.round((standing.given / decided) * 100)}% of the ${count(decided, 'customer', 'customers')} who decided on it gave consent.`;
  return html`<table class="standing">
<caption>Customers on the latest version (${latest.version}, tag <span class="mono">${latest.tag}</span>), by their last decision on it</caption>
<thead><tr><th scope="col">Given</th><th scope="col">Rejected</th><th scope="col">Withdrawn</th><th scope="col">Pending</th></tr></thead>
<tbody><tr><td>${standing.given}</td><td>${standing.reject}</td><td>${standing.withdraw}</td><td>${pending}</td></tr></tbody>
</table>
<p>${share} ${count(pending, 'customer', 'customers')} decided on an earlier version only and ${pending === 1 ? 'is' : 'are'} pending.</p>`;
}
