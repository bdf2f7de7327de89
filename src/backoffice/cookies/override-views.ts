import type { OverrideView } from '../../cookie-scanner/index.js';
import { time } from '../web/format.js';
import { csrfField, type FieldErrors, formErrors, input, select } from '../web/forms.js';
import { type Html, html } from '../web/html.js';
import { basePath } from '../web/layout.js';
import { classificationPath } from './paths.js';
import { cookieTabs } from './section.js';

export interface ClassificationPageModel {
  overrides: OverrideView[];
  zone: string;
  /** With `cookies:edit`: the form to add one, and a Remove button on each. */
  form?: {
    csrfToken: string;
    values: Record<string, string>;
    errors: string[];
    fieldErrors: FieldErrors;
  };
}

/** The tenant's own classification of cookies and hosts, which the scanner takes first. */
export function classificationPage(o: ClassificationPageModel): Html {
  const f = o.form;
  const v = f?.values ?? {};
  return html`${cookieTabs('classification')}
<h1>Cookie classification</h1>
<p>What you know of your own trackers: each scan of your systems takes it before the Open Cookie Database and the list of known hosts. A cookie is named exactly or by a prefix ending in *; a host covers its subdomains.</p>
${
  o.overrides.length === 0
    ? html`<p>No classification of your own yet.</p>`
    : html`<div class="table-scroll" tabindex="0" role="region" aria-label="Your classification"><table>
<thead><tr><th scope="col">Cookie or host</th><th scope="col">Category</th><th scope="col">Provider</th><th scope="col">Purpose</th><th scope="col">Retention</th><th scope="col">Saved</th>${f ? html`<th scope="col">Remove</th>` : ''}</tr></thead>
<tbody>
${o.overrides.map(
  (r) =>
    html`<tr><td><span class="mono">${r.pattern}</span> <small>(${r.kind})</small></td><td class="mono">${r.category}</td><td>${r.provider ?? '—'}</td><td>${r.purpose ?? '—'}</td><td>${r.retention ?? '—'}</td><td>${time(r.updated_at, o.zone)}</td>${
      f
        ? html`<td><form method="post" action="${basePath}${classificationPath}/remove">${csrfField(f.csrfToken)}<input type="hidden" name="kind" value="${r.kind}"><input type="hidden" name="pattern" value="${r.pattern}"><button type="submit" class="secondary">Remove<span class="visually-hidden"> ${r.pattern}</span></button></form></td>`
        : ''
    }</tr>`,
)}
</tbody></table></div>`
}
${
  f
    ? html`<h2>Classify a cookie or host</h2>
${formErrors(f.errors)}
<form method="post" action="${basePath}${classificationPath}">
${csrfField(f.csrfToken)}
<div class="grid">
<div>${select({
        name: 'kind',
        label: 'What',
        value: v.kind ?? 'cookie',
        options: [
          ['cookie', 'A cookie'],
          ['host', 'A host'],
        ],
        error: f.fieldErrors.kind,
      })}</div>
<div>${input({ name: 'pattern', label: 'Name or host', value: v.pattern, required: true, maxlength: 253, hint: 'Such as _ga*, or collect.bank.example.', error: f.fieldErrors.pattern })}</div>
<div>${input({ name: 'category', label: 'Category', value: v.category, required: true, maxlength: 40, hint: 'necessary, analytics, marketing, functional, personalization, or one of your own keys.', error: f.fieldErrors.category })}</div>
</div>
<div class="grid">
<div>${input({ name: 'provider', label: 'Provider (optional)', value: v.provider, maxlength: 100, error: f.fieldErrors.provider })}</div>
<div>${input({ name: 'retention', label: 'Retention (optional)', value: v.retention, maxlength: 100, error: f.fieldErrors.retention })}</div>
</div>
${input({ name: 'purpose', label: 'Purpose (optional)', value: v.purpose, maxlength: 500, error: f.fieldErrors.purpose })}
<p><button type="submit">Save</button></p>
</form>`
    : ''
}`;
}
