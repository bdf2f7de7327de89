import { dayRuleNote } from '../web/filters.js';
import { type FieldErrors, formErrors, input, select } from '../web/forms.js';
import { type Html, html } from '../web/html.js';
import { basePath } from '../web/layout.js';

export function exportForm(o: {
  templates: ReadonlyArray<{ code: string; name: string }>;
  products: ReadonlyArray<{ code: string; name: string }>;
  values: { template: string; product: string; from: string; to: string };
  errors: string[];
  fieldErrors: FieldErrors;
  /** The tenant's time zone, in which the days are read. */
  zone: string;
}): Html {
  return html`<hgroup><h1>Exports</h1><p>Every decision, with its evidence, as CSV.</p></hgroup>
<p>The file has one row per decision, oldest first: when, customer, template, version and tag, the decision, the API key that sent it, the caller's IP address and user agent, the SHA-256 of the text the customer was shown and its locale. <code>decided_at</code> is the exact time in UTC; <code>decided_on</code> is its day in ${o.zone}, named in the <code>time_zone</code> column.</p>
${formErrors(o.errors)}
<form method="get" action="${basePath}/exports/decisions.csv" novalidate>
${o.products.length > 1 ? select({ name: 'product', label: 'Product', value: o.values.product, options: [['', 'All products'], ...o.products.map((p) => [p.code, p.name] as const)] }) : ''}
${select({ name: 'template', label: 'Template', value: o.values.template, options: [['', 'All templates'], ...o.templates.map((t) => [t.code, `${t.code} (${t.name})`] as const)] })}
<div class="grid">
<div>${input({ name: 'from', label: 'From (first day, optional)', type: 'date', value: o.values.from, error: o.fieldErrors.from })}</div>
<div>${input({ name: 'to', label: 'To (last day, optional)', type: 'date', value: o.values.to, error: o.fieldErrors.to })}</div>
</div>
<p>${dayRuleNote(o.zone)}</p>
<button type="submit">Download CSV</button>
</form>
<h2 id="controls">Channel changes and partner blocks</h2>
<p>Every change of a customer's channels and of the partners blocked on their decisions, oldest first: when, the kind, the customer, the product and channel or the decision and partner, blocked or allowed, the change's id (its receipt), who made it (an API key, or <code>user:</code> and a user of this back-office), the address and user agent, and the <code>Idempotency-Key</code>.</p>
<form method="get" action="${basePath}/exports/controls.csv" novalidate>
<div class="grid">
<div><label for="controls-from">First day of changes (optional)</label><input type="date" id="controls-from" name="from"></div>
<div><label for="controls-to">Last day of changes (optional)</label><input type="date" id="controls-to" name="to"></div>
</div>
<button type="submit">Download the changes as CSV</button>
</form>
<h2>Audit log</h2>
<p>What was done in this back-office, by whom: <a href="${basePath}/audit">view it</a> or <a href="${basePath}/audit.csv" download>download it as CSV</a>.</p>`;
}
