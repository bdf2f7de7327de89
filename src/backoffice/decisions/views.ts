import type { ApiKeyView } from '../../api-keys/index.js';
import type { DecisionPartner } from '../../partner-blocks/index.js';
import type { DecisionEvidence, LoggedDecisionRecord } from '../../records/index.js';
import { dayRuleNote, queryString } from '../web/filters.js';
import { actedByText, badge, time } from '../web/format.js';
import { type FieldErrors, formErrors, input, select } from '../web/forms.js';
import { type Html, html, segment, trusted } from '../web/html.js';
import { basePath } from '../web/layout.js';

export type DecisionFilterValues = Record<
  'product' | 'template' | 'version' | 'decision' | 'key' | 'locale' | 'customer' | 'from' | 'to',
  string
>;

type Choice = ReadonlyArray<{ code: string; name: string }>;

const receiptLink = (d: LoggedDecisionRecord) =>
  d.log_index === null
    ? badge('pending', 'queued')
    : html`#${d.log_index} <a href="${basePath}/decisions/${segment(d.decision_id)}/receipt" download>Receipt<span class="visually-hidden"> of ${d.decision_id}</span></a>`;

export function decisionsPage(o: {
  decisions: LoggedDecisionRecord[];
  next: { decidedAt: string; id: string } | undefined;
  first: boolean;
  values: DecisionFilterValues;
  errors: string[];
  fieldErrors: FieldErrors;
  products: Choice;
  templates: Choice;
  keys: ReadonlyArray<Pick<ApiKeyView, 'id' | 'name' | 'prefix'>>;
  zone: string;
  mayDownload: boolean;
}): Html {
  const v = o.values;
  const filtered = Object.values(v).some(Boolean);
  return html`<hgroup><h1>Decisions</h1><p>Every decision of every customer, newest first, with its evidence.</p></hgroup>
${formErrors(o.errors)}
<form method="get" action="${basePath}/decisions" class="filters" novalidate>
<fieldset class="grid">
${o.products.length > 1 ? html`<div>${select({ name: 'product', label: 'Product', value: v.product, options: [['', 'Any'], ...o.products.map((p) => [p.code, p.name] as const)] })}</div>` : ''}
<div>${select({ name: 'template', label: 'Template', value: v.template, options: [['', 'Any'], ...o.templates.map((t) => [t.code, t.code] as const)] })}</div>
<div>${input({ name: 'version', label: 'Version', value: v.version, maxlength: 9, error: o.fieldErrors.version, hint: 'Its number, with a template.' })}</div>
<div>${select({
    name: 'decision',
    label: 'Decision',
    value: v.decision,
    options: [
      ['', 'Any'],
      ['given', 'given'],
      ['reject', 'reject'],
      ['withdraw', 'withdraw'],
    ],
  })}${o.fieldErrors.decision ? html`<small class="field-error">${o.fieldErrors.decision}</small>` : ''}</div>
</fieldset>
<fieldset class="grid">
<div>${select({ name: 'key', label: 'API key', value: v.key, options: [['', 'Any'], ...o.keys.map((k) => [k.id, `${k.name} (${k.prefix})`] as const)] })}</div>
<div>${input({ name: 'locale', label: 'Locale', value: v.locale, maxlength: 35, error: o.fieldErrors.locale, hint: 'Of the text shown, such as th (finds th-TH too).' })}</div>
<div>${input({ name: 'customer', label: 'Customer id', value: v.customer, maxlength: 128, error: o.fieldErrors.customer, hint: 'Exactly as your systems send it.' })}</div>
<div>${input({ name: 'from', label: 'From (day)', type: 'date', value: v.from, error: o.fieldErrors.from })}</div>
<div>${input({ name: 'to', label: 'To (day, included)', type: 'date', value: v.to, error: o.fieldErrors.to })}</div>
</fieldset>
${dayRuleNote(o.zone)}
<p><button type="submit">Filter</button> <a href="${basePath}/decisions">Clear</a></p>
</form>
${o.mayDownload ? html`<p><a href="${basePath}/decisions.csv${queryString(v)}" download>${filtered ? 'Download these decisions as CSV' : 'Download every decision as CSV'}</a> (oldest first)</p>` : ''}
${
  o.decisions.length === 0
    ? html`<p>No decision ${filtered ? 'matches these filters' : 'recorded yet'}.</p>`
    : html`<div class="table-scroll" tabindex="0" role="region" aria-label="Decisions"><table>
<thead><tr><th scope="col">When</th><th scope="col">Customer</th><th scope="col">Template</th><th scope="col">Version</th><th scope="col">Decision</th><th scope="col">API key</th><th scope="col">Log</th></tr></thead>
<tbody>
${o.decisions.map(
  (d) => html`<tr>
<td><a href="${basePath}/decisions/${segment(d.decision_id)}">${time(d.decided_at, o.zone)}</a></td>
<td class="mono">${d.customer_id ?? html`<em>erased</em>`}</td>
<td class="mono">${d.template_code}</td>
<td>${d.version} <span class="mono">(${d.tag}, ${d.locale})</span></td>
<td>${badge(d.decision)}</td>
<td>${d.api_key_name ?? '—'}</td>
<td class="nowrap">${receiptLink(d)}</td>
</tr>`,
)}
</tbody></table></div>`
}
<nav class="pager" aria-label="Pages of decisions">
${o.first ? html`<span></span>` : html`<a href="${basePath}/decisions${queryString(v)}">Newest</a>`}
${o.next ? html`<a href="${basePath}/decisions${queryString(v, { before: `${o.next.decidedAt}~${o.next.id}` })}">Older</a>` : ''}
</nav>`;
}

/** What the decision's page shows of its partners, and whether the user may change them. */
export interface PartnersPanel {
  partners: readonly DecisionPartner[];
  /** Whether the decision is in force: only then are its partners blocked or allowed. */
  inForce: boolean;
  /** The CSRF token of the forms; none when the user may not block or allow (view only). */
  csrfToken: string | undefined;
}

/**
 * The partners the decision's version lists, each with its block: a button per partner for a
 * user with `consent_decisions:edit`, while the customer's key exists and the decision is in
 * force.
 */
function partnersSection(
  d: DecisionEvidence,
  panel: PartnersPanel | undefined,
  zone: string,
): Html | string {
  if (!panel || panel.partners.length === 0) return '';
  const editable = panel.inForce && panel.csrfToken !== undefined && d.customer_id !== null;
  const rows = panel.partners.map(
    (p) => html`<tr><td>${p.name} <span class="mono">(${p.partner_code})</span></td>
<td>${p.blocked ? badge('revoked', 'blocked') : badge('active', 'allowed')}</td>
<td>${p.since ? time(p.since, zone) : '—'}</td>
${
  editable
    ? html`<td><form method="post" action="${basePath}/decisions/${segment(d.decision_id)}/partners/${segment(p.partner_code)}"><input type="hidden" name="_csrf" value="${panel.csrfToken ?? ''}"><input type="hidden" name="blocked" value="${p.blocked ? '0' : '1'}"><button type="submit" class="secondary">${p.blocked ? 'Allow' : 'Block'} ${p.name}</button></form></td>`
    : ''
}</tr>`,
  );
  return html`<h2 id="partners">Partners</h2>
<p>The partners this version's text allows sharing with. A block stops sharing with one partner
on this decision only; the decision stands. Each change is recorded in the decision log.
${panel.inForce ? '' : "Blocks change only on the customer's decision in force: their latest on the template, a given that has not lapsed."}</p>
<div class="table-scroll" tabindex="0" role="region" aria-label="Partners"><table>
<thead><tr><th scope="col">Partner</th><th scope="col">Sharing</th><th scope="col">Since</th>${editable ? html`<th scope="col">Change</th>` : ''}</tr></thead>
<tbody>${rows}</tbody></table></div>`;
}

export function decisionPage(d: DecisionEvidence, zone: string, partners?: PartnersPanel): Html {
  return html`<nav aria-label="breadcrumb"><ul><li><a href="${basePath}/decisions">Decisions</a></li><li class="mono">${d.decision_id.slice(0, 8)}…</li></ul></nav>
<hgroup><h1>Decision: ${d.decision}</h1><p>${time(d.decided_at, zone)}</p></hgroup>
<dl class="facts">
<dt>Decision id</dt><dd class="mono">${d.decision_id}</dd>
<dt>Customer</dt><dd>${d.customer_id === null ? html`<em>erased</em>: the id, IP address and user agent are gone for good` : html`<a class="mono" href="${basePath}/customers?customer_id=${encodeURIComponent(d.customer_id)}">${d.customer_id}</a>`}</dd>
<dt>Template</dt><dd>${d.template_name} <span class="mono">(${d.template_code})</span></dd>
<dt>Version</dt><dd>${d.version}, tag <span class="mono">${d.tag}</span> <span class="mono">(${d.version_id})</span></dd>
<dt>Locale</dt><dd><span class="mono">${d.locale}</span></dd>
<dt>API key</dt><dd>${d.api_key_name ? html`${d.api_key_name} <span class="mono">(${d.api_key_prefix})</span>` : '—'}</dd>
<dt>IP address</dt><dd class="mono">${d.ip ?? '—'}</dd>
<dt>User agent</dt><dd class="mono">${d.user_agent ?? '—'}</dd>
${d.acted_by ? html`<dt>Acted by</dt><dd>${actedByText(d.acted_by)}</dd>` : ''}
${d.explicit ? html`<dt>Explicit consent</dt><dd>${d.explicit.method}: “${d.explicit.text_shown}”</dd>` : ''}
<dt>Decision log</dt><dd>${receiptLink(d)}</dd>
<dt>SHA-256 of the text shown</dt><dd class="mono">${d.content_sha256}</dd>
</dl>
${partnersSection(d, partners, zone)}
<h2>The text the customer was shown</h2>
<div class="content-preview" tabindex="0" role="region" aria-label="The text shown">${trusted(d.content_html)}</div>`;
}
