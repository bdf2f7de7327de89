import type { CookieDecisionListItem } from '../../cookies/index.js';
import { dayRuleNote, queryString } from '../web/filters.js';
import { time } from '../web/format.js';
import { type FieldErrors, formErrors, input, select } from '../web/forms.js';
import { type Html, html, segment } from '../web/html.js';
import { basePath } from '../web/layout.js';
import { categoryBadges, methodWords } from './models.js';
import { configurationPath } from './paths.js';
import { cookieTabs } from './section.js';

export type CookieDecisionFilterValues = Record<
  | 'system'
  | 'configuration'
  | 'category'
  | 'granted'
  | 'method'
  | 'from'
  | 'to'
  | 'visitor'
  | 'decision',
  string
>;

export interface CookieDecisionsPageModel {
  decisions: CookieDecisionListItem[];
  next: { decidedAt: string; id: string } | undefined;
  first: boolean;
  values: CookieDecisionFilterValues;
  errors: string[];
  fieldErrors: FieldErrors;
  systems: ReadonlyArray<{ scope: string; name: string }>;
  configurations: ReadonlyArray<{ id: string; label: string }>;
  categories: readonly string[];
  zone: string;
  /** Whether the reader may take the CSV and the receipts (`cookies:export`). */
  mayDownload: boolean;
  /** Whether the reader may erase a visitor (`customers:erase`): the link shows only then. */
  mayErase: boolean;
}

export function cookieDecisionsPage(o: CookieDecisionsPageModel): Html {
  const v = o.values;
  const filtered = Object.values(v).some(Boolean);
  const field = (name: string) =>
    o.fieldErrors[name] ? html`<small class="field-error">${o.fieldErrors[name]}</small>` : '';
  return html`<hgroup><h1>Cookie decisions</h1><p>Visitors' choices on your banners, newest first.</p></hgroup>
${cookieTabs('decisions')}
${formErrors(o.errors)}
<form method="get" action="${basePath}/cookies/decisions" class="filters" novalidate>
<fieldset class="grid">
<div>${select({ name: 'system', label: 'System', value: v.system, options: [['', 'Any'], ...o.systems.map((s) => [s.scope, s.name] as const)] })}</div>
<div>${select({ name: 'configuration', label: 'Configuration', value: v.configuration, options: [['', 'Any'], ...o.configurations.map((c) => [c.id, c.label] as const)] })}</div>
<div>${select({ name: 'method', label: 'How it was made', value: v.method, options: [['', 'Any'], ...Object.entries(methodWords)] })}${field('method')}</div>
</fieldset>
<fieldset class="grid">
<div>${select({ name: 'category', label: 'Category', value: v.category, options: [['', 'Any'], ...o.categories.map((c) => [c, c] as const)] })}${field('category')}</div>
<div>${select({
    name: 'granted',
    label: 'The category',
    value: v.granted,
    options: [
      ['', 'Granted or denied'],
      ['granted', 'Granted'],
      ['denied', 'Denied'],
    ],
  })}${field('granted')}</div>
<div>${input({ name: 'from', label: 'From (day)', type: 'date', value: v.from, error: o.fieldErrors.from })}</div>
<div>${input({ name: 'to', label: 'To (day, included)', type: 'date', value: v.to, error: o.fieldErrors.to })}</div>
</fieldset>
<fieldset class="grid">
<div>${input({ name: 'visitor', label: 'Visitor id', value: v.visitor, error: o.fieldErrors.visitor, hint: 'The id the banner keeps in the visitor’s browser (Consentrix.consent().visitor_id).' })}</div>
<div>${input({ name: 'decision', label: 'Decision id', value: v.decision, error: o.fieldErrors.decision, hint: 'The id a choice was answered with: its receipt’s.' })}</div>
</fieldset>
${dayRuleNote(o.zone)}
<p><button type="submit">Filter</button> <a href="${basePath}/cookies/decisions">Clear</a></p>
</form>
${o.mayDownload ? html`<p><a href="${basePath}/cookies/decisions.csv${queryString(v)}" download>${filtered ? 'Download these decisions as CSV' : 'Download every cookie decision as CSV'}</a> (oldest first, with the visitor's id, address and user agent)</p>` : ''}
${o.mayErase ? html`<p>A visitor who asks for their data to be erased: <a href="${basePath}/cookies/visitors/erase">Erase a visitor…</a></p>` : ''}
${
  o.decisions.length === 0
    ? html`<p>No cookie decision ${filtered ? 'matches these filters' : 'recorded yet'}.</p>`
    : html`<div class="table-scroll" tabindex="0" role="region" aria-label="Cookie decisions"><table>
<thead><tr><th scope="col">When</th><th scope="col">System</th><th scope="col">Configuration</th><th scope="col">How</th><th scope="col">Categories</th><th scope="col">Locale</th><th scope="col">Origin</th><th scope="col">Region</th>${o.mayDownload ? html`<th scope="col">Receipt</th>` : ''}</tr></thead>
<tbody>
${o.decisions.map(
  (d) => html`<tr>
<td>${time(d.decided_at, o.zone)}</td>
<td>${d.system_name}</td>
<td><a href="${basePath}${configurationPath(d.configuration_id)}">version ${d.configuration_version}</a></td>
<td>${methodWords[d.method] ?? d.method}</td>
<td class="wrap">${categoryBadges(d.categories)}</td>
<td class="mono">${d.locale}</td>
<td class="mono">${d.origin}</td>
<td class="mono">${d.region ?? '—'}</td>
${o.mayDownload ? html`<td class="nowrap"><a href="${basePath}/cookies/decisions/${segment(d.decision_id)}/receipt" download>Receipt<span class="visually-hidden"> of ${d.decision_id}</span></a></td>` : ''}
</tr>`,
)}
</tbody></table></div>`
}
<nav class="pager" aria-label="Pages of cookie decisions">
${o.first ? html`<span></span>` : html`<a href="${basePath}/cookies/decisions${queryString(v)}">Newest</a>`}
${o.next ? html`<a href="${basePath}/cookies/decisions${queryString(v, { before: `${o.next.decidedAt}~${o.next.id}` })}">Older</a>` : ''}
</nav>`;
}

export function cookieReceiptQueued(decisionId: string): Html {
  return html`<h1>Receipt not ready yet</h1>
<p role="status">Cookie decision <span class="mono">${decisionId}</span> is queued for the decision log; its receipt is ready within about a second. Reload this page to download it.</p>`;
}
