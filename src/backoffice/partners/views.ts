import type { PartnerRow, PartnerSummaryRow } from '../../partners/index.js';
import { time } from '../web/format.js';
import { csrfField, type FieldErrors, formErrors, input, textarea } from '../web/forms.js';
import { type Html, html, segment } from '../web/html.js';
import { basePath } from '../web/layout.js';

const partnerPath = (code: string) => `${basePath}/partners/${segment(code)}`;

export interface PartnerValues {
  code: string;
  name: string;
  purpose: string;
  country: string;
  policy_url: string;
}

export function partnerList(partners: readonly PartnerSummaryRow[], mayCreate: boolean): Html {
  return html`<hgroup><h1>Partners</h1><p>The third parties your consent texts may allow customer data to be shared with. A version lists the partners its text allows.</p></hgroup>
${mayCreate ? html`<p><a href="${basePath}/partners/new" role="button">New partner</a></p>` : ''}
${
  partners.length === 0
    ? html`<p>No partner yet.</p>`
    : html`<div class="table-scroll" tabindex="0" role="region" aria-label="Partners"><table>
<thead><tr><th scope="col">Code</th><th scope="col">Name</th><th scope="col">Country</th><th scope="col">Versions listing it</th></tr></thead>
<tbody>
${partners.map(
  (p) => html`<tr>
<td><a href="${partnerPath(p.code)}">${p.code}</a></td>
<td class="wrap">${p.name}</td>
<td>${p.country ?? ''}</td>
<td>${p.release_count}</td>
</tr>`,
)}
</tbody></table></div>`
}`;
}

interface FormModel {
  csrfToken: string;
  values: PartnerValues;
  errors: string[];
  fieldErrors: FieldErrors;
}

export function newPartnerForm(o: FormModel): Html {
  return html`<nav aria-label="breadcrumb"><ul><li><a href="${basePath}/partners">Partners</a></li><li>New</li></ul></nav>
<h1>New partner</h1>
${formErrors(o.errors)}
<form method="post" action="${basePath}/partners" novalidate>
${csrfField(o.csrfToken)}
${input({ name: 'code', label: 'Code', value: o.values.code, required: true, maxlength: 64, hint: 'A short, fixed name such as acme-insurance: lowercase letters, digits and -. It cannot be changed later.', error: o.fieldErrors.code })}
${fields(o)}
<button type="submit">Create partner</button>
</form>`;
}

function fields(o: FormModel): Html {
  return html`${input({ name: 'name', label: 'Name', value: o.values.name, required: true, maxlength: 200, error: o.fieldErrors.name })}
${textarea({ name: 'purpose', label: 'Purpose (optional)', value: o.values.purpose, rows: 3, maxlength: 2000, hint: 'What the partner receives customer data for.', error: o.fieldErrors.purpose })}
${input({ name: 'country', label: 'Country (optional)', value: o.values.country, maxlength: 2, hint: 'Two letters, ISO 3166-1: TH, DE, US.', error: o.fieldErrors.country })}
${input({ name: 'policy_url', label: 'Privacy policy (optional)', type: 'url', value: o.values.policy_url, maxlength: 2000, hint: 'The address of their privacy policy, starting with https://.', error: o.fieldErrors.policy_url })}`;
}

export function partnerPage(
  partner: PartnerRow,
  o: FormModel & { releaseCount: number; zone: string; mayEdit: boolean; mayDelete: boolean },
): Html {
  const path = partnerPath(partner.code);
  return html`<nav aria-label="breadcrumb"><ul><li><a href="${basePath}/partners">Partners</a></li><li>${partner.code}</li></ul></nav>
<hgroup><h1>${partner.name}</h1><p><span class="mono">${partner.code}</span></p></hgroup>
${partner.purpose ? html`<p>${partner.purpose}</p>` : ''}
<dl class="facts">
<dt>Country</dt><dd>${partner.country ?? 'not given'}</dd>
<dt>Privacy policy</dt><dd>${partner.policy_url ? html`<a href="${partner.policy_url}" rel="noopener noreferrer">${partner.policy_url}</a>` : 'not given'}</dd>
<dt>Versions listing it</dt><dd>${o.releaseCount}</dd>
<dt>Created</dt><dd>${time(partner.created_at, o.zone)}</dd>
<dt>Changed</dt><dd>${time(partner.updated_at, o.zone)}</dd>
</dl>
${formErrors(o.errors)}
${
  o.mayEdit
    ? html`<h2>Details</h2>
<form method="post" action="${path}" novalidate>
${csrfField(o.csrfToken)}
${fields(o)}
<button type="submit">Save</button>
</form>`
    : ''
}
${
  o.mayDelete && o.releaseCount === 0
    ? html`<form method="post" action="${path}/delete">
${csrfField(o.csrfToken)}
<button type="submit" class="secondary">Delete this partner</button>
</form>`
    : ''
}
${o.releaseCount > 0 && o.mayDelete ? html`<p><small>A version lists this partner, so it cannot be deleted.</small></p>` : ''}`;
}
