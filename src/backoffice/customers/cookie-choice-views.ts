import type { CookieDecisionListItem } from '../../cookies/index.js';
import { categoryBadges, methodWords } from '../cookies/models.js';
import { queryString } from '../web/filters.js';
import { time } from '../web/format.js';
import { type Html, html } from '../web/html.js';
import { basePath } from '../web/layout.js';

/** The cookie choices a customer made while signed in, as their page shows them. */
export interface CustomerCookieChoices {
  customerId: string;
  /** Newest first: the first page of the cookie decisions' list. */
  decisions: readonly CookieDecisionListItem[];
  /** Whether older choices are left off the page. */
  more: boolean;
  zone: string;
  /** Whether the user may open the cookie decisions' list (`cookies:view`): the links show only then. */
  mayOpen: boolean;
}

/**
 * The customer's choices on the tenant's cookie banners, made while a site had signed them in
 * (docs/cookies.md, "Signed-in visitors"): their own choices, however many visitors' browsers
 * they were made in. Each opens the cookie decisions' list filtered to it, where its receipt is.
 */
export function customerCookieChoices(o: CustomerCookieChoices): Html {
  if (o.decisions.length === 0) {
    return html`<h2>Cookie choices made while signed in</h2>
<p>No cookie choice was made while signed in as this customer.</p>`;
  }
  return html`<h2>Cookie choices made while signed in</h2>
${o.more ? html`<p>The ${o.decisions.length} most recent choices are shown; the evidence pack has them all.</p>` : ''}
<div class="table-scroll" tabindex="0" role="region" aria-label="Cookie choices made while signed in"><table class="cookie-choices">
<caption class="visually-hidden">Cookie choices made while signed in as customer ${o.customerId}, newest first</caption>
<thead><tr><th scope="col">When</th><th scope="col">System</th><th scope="col">How</th><th scope="col">Categories</th></tr></thead>
<tbody>
${o.decisions.map(
  (d) => html`<tr>
<td>${o.mayOpen ? html`<a href="${basePath}/cookies/decisions${queryString({ decision: d.decision_id })}">${time(d.decided_at, o.zone)}</a>` : time(d.decided_at, o.zone)}</td>
<td>${d.system_name}</td>
<td>${methodWords[d.method] ?? d.method}</td>
<td class="wrap">${categoryBadges(d.categories)}</td>
</tr>`,
)}
</tbody></table></div>`;
}
