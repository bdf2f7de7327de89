import type { LoggedDecisionRecord, TemplateStanding } from '../../records/index.js';
import { actedByText, badge, count, time } from '../web/format.js';
import { csrfField, input } from '../web/forms.js';
import { type Html, html } from '../web/html.js';
import { basePath } from '../web/layout.js';

export function customerSearch(o: {
  customerId: string;
  error: string | undefined;
  /** Whether the user may erase (a website visitor's erasure is linked from here too). */
  mayErase: boolean;
}): Html {
  return html`<hgroup><h1>Customers</h1><p>Where a customer stands, and every decision with its evidence.</p></hgroup>
<form method="get" action="${basePath}/customers" aria-label="Look up a customer">
${input({ name: 'customer_id', label: 'Customer id', type: 'search', value: o.customerId, required: true, maxlength: 128, hint: 'Exactly as your systems send it (case matters).', error: o.error })}
<button type="submit">Look up</button>
</form>
${o.mayErase ? html`<p>A website visitor, by the visitor id their browser keeps: <a href="${basePath}/cookies/visitors/erase">Erase a website visitor…</a></p>` : ''}`;
}

export interface ErasureSummary {
  customers: number;
  decisions: number;
  latestAt: string | null;
}

/**
 * Said beside every look-up that finds nothing, once the tenant has erased anyone: the same for
 * an erased id as for one never seen, since nothing links an erasure to the id.
 */
function erasureNotice(e: ErasureSummary): Html {
  if (e.customers === 0 || e.latestAt === null) return html``;
  return html`<p class="erasure-notice">If this customer was erased, nothing about them can be found here: an erasure keeps no link to the customer id.
${count(e.customers, 'customer of this tenant was', 'customers of this tenant were')} erased, the latest on <time datetime="${e.latestAt}">${e.latestAt.slice(0, 10)}</time>;
their ${count(e.decisions, 'decision stays in the decision log, without whose it was', 'decisions stay in the decision log, without whose they were')}.
The <a href="${basePath}/audit">audit log</a> lists each erasure.</p>`;
}

export function customerResult(o: {
  customerId: string;
  standings: TemplateStanding[];
  history: LoggedDecisionRecord[];
  historyLimit: number;
  erasures: ErasureSummary;
  zone: string;
  /** Whether the user may erase customers (the button shows only then). */
  mayErase: boolean;
  csrfToken: string;
  /** The customer's channels (channel-views.ts), for those who may see them. */
  channels: Html;
  /** Their cookie choices made while signed in (cookie-choice-views.ts). */
  cookieChoices: Html;
  /** Whether they made any: a customer known by those alone has a pack and can be erased. */
  hasCookieChoices: boolean;
}): Html {
  if (o.history.length === 0) {
    return html`<p role="status">No decision recorded for <span class="mono">${o.customerId}</span>.</p>
${erasureNotice(o.erasures)}
${o.channels}
${o.cookieChoices}
${o.hasCookieChoices ? customerActions(o) : ''}`;
  }
  return html`<h2>Templates</h2>
<div class="table-scroll" tabindex="0" role="region" aria-label="Templates"><table>
<caption class="visually-hidden">Where customer ${o.customerId} stands on each template</caption>
<thead><tr><th scope="col">Template</th><th scope="col">Latest version</th><th scope="col">On the latest version</th><th scope="col">Most recent decision</th><th scope="col">Decisions</th></tr></thead>
<tbody>
${o.standings.map(
  (s) => html`<tr>
<td><span class="mono">${s.template_code}</span><br><small>${s.template_name}</small></td>
<td>${s.latest_version === null ? '—' : html`${s.latest_version} <span class="mono">(${s.latest_tag})</span>`}</td>
<td>${standingOnLatest(s, o.zone)}</td>
<td>${badge(s.last_decision)} ${time(s.last_decided_at, o.zone)}</td>
<td>${s.decision_count}</td>
</tr>`,
)}
</tbody></table></div>
${o.channels}
<h2>History</h2>
${o.history.length === o.historyLimit ? html`<p>The ${o.historyLimit} most recent decisions are shown; the export has them all.</p>` : ''}
<div class="table-scroll" tabindex="0" role="region" aria-label="History"><table class="history">
<caption class="visually-hidden">Decisions of customer ${o.customerId}, newest first</caption>
<thead><tr><th scope="col">Time</th><th scope="col">Template</th><th scope="col">Version</th><th scope="col">Tag (locale)</th><th scope="col">Decision</th><th scope="col">API key</th><th scope="col">IP address</th><th scope="col">User agent</th><th scope="col">In the log</th></tr></thead>
<tbody>
${o.history.map(
  (d) => html`<tr>
<td>${time(d.decided_at, o.zone)}</td>
<td class="mono">${d.template_code}</td>
<td>${d.version}</td>
<td class="mono">${d.tag} (${d.locale})</td>
<td>${badge(d.decision)}${d.acted_by ? html`<br><small>by ${actedByText(d.acted_by)}</small>` : ''}</td>
<td>${d.api_key_name ?? ''} <small class="mono">${d.api_key_prefix ?? ''}</small></td>
<td class="mono">${d.ip ?? '—'}</td>
<td class="wrap"><small>${d.user_agent ?? '—'}</small></td>
<td class="nowrap">${d.log_index === null ? badge('pending', 'queued') : html`#${d.log_index} <a href="${basePath}/decisions/${d.decision_id}/receipt" download>Receipt<span class="visually-hidden"> of ${d.decision_id}</span></a>`}</td>
</tr>`,
)}
</tbody></table></div>
${o.cookieChoices}
${customerActions(o)}`;
}

/** A known customer's evidence pack, and their erasure for those who may. */
function customerActions(o: { customerId: string; csrfToken: string; mayErase: boolean }): Html {
  return html`<h2>Evidence pack</h2>
<p>One ZIP with every decision, channel change and cookie choice made while signed in of this customer, each with its receipt, the texts they were shown, and a manifest signed with the decision log's key; <code>verify-receipt --pack</code> checks it offline.</p>
<form method="post" action="${basePath}/customers/evidence">
${csrfField(o.csrfToken)}
<input type="hidden" name="customer_id" value="${o.customerId}">
<button type="submit" class="secondary">Download evidence pack</button>
</form>
${
  o.mayErase
    ? html`<h2>Erasure</h2>
<p>On the customer's request, their personal data can be erased for good; their decisions stay provable in the decision log.</p>
<p><a href="${basePath}/customers/erase?customer_id=${encodeURIComponent(o.customerId)}" role="button" class="secondary">Erase this customer…</a></p>`
    : ''
}`;
}

export function erasureConfirmation(o: {
  customerId: string;
  csrfToken: string;
  error: string | undefined;
}): Html {
  return html`<article>
<h1>Erase customer <span class="mono">${o.customerId}</span>?</h1>
<p>Their key is destroyed: their customer id, the IP addresses and the user agents kept with their decisions can never be read again, by anyone, and their current consents are forgotten, so every template is pending for them again.</p>
<p>Their decisions stay in the decision log as proof that they were made, without whose they were, and an <code>erased</code> entry is added to it. Receipts already handed out still verify. This cannot be undone.</p>
<form method="post" action="${basePath}/customers/erase">
${csrfField(o.csrfToken)}
<input type="hidden" name="customer_id" value="${o.customerId}">
${input({ name: 'confirm', label: 'Type the customer id to confirm', required: true, maxlength: 128, autocomplete: 'off', error: o.error })}
<div class="actions">
<button type="submit" class="contrast">Erase for good</button>
<a href="${basePath}/customers?customer_id=${encodeURIComponent(o.customerId)}" class="secondary">Cancel</a>
</div>
</form>
</article>`;
}

/**
 * The customer's decision on the latest version: pending when there is none, or when it is a
 * `given` that has lapsed under the template's validity period (the API's `accepted: false`).
 */
function standingOnLatest(s: TemplateStanding, zone: string): Html {
  if (!s.decision_on_latest) return badge('pending');
  if (s.lapse?.expired)
    return html`${badge('pending', 'lapsed')} <small>given, lapsed ${time(s.lapse.expires_at, zone)}</small>`;
  if (s.lapse)
    return html`${badge(s.decision_on_latest)} <small>lapses ${time(s.lapse.expires_at, zone)}</small>`;
  return badge(s.decision_on_latest);
}
