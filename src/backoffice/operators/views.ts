import type { OperatorMember } from '../../accounts/index.js';
import { badge, time } from '../web/format.js';
import { csrfField, type FieldErrors, formErrors, input } from '../web/forms.js';
import { type Html, html, segment } from '../web/html.js';
import { basePath } from '../web/layout.js';

export function operatorsPage(o: {
  operators: OperatorMember[];
  selfId: string;
  csrfToken: string;
  values: { name: string; email: string };
  errors: string[];
  fieldErrors: FieldErrors;
  mailed: boolean;
}): Html {
  const action = (m: OperatorMember, path: string, label: string) =>
    html`<form method="post" action="${basePath}/operator/operators/${segment(m.id)}/${path}">${csrfField(o.csrfToken)}<button type="submit" class="secondary outline">${label}<span class="visually-hidden"> ${m.email}</span></button></form>`;
  return html`<hgroup><h1>Operators</h1><p>The service's administrators.</p></hgroup>
<div class="table-scroll" tabindex="0" role="region" aria-label="Operators"><table>
<thead><tr><th scope="col">Name</th><th scope="col">E-mail</th><th scope="col">Status</th><th scope="col">Two-factor</th><th scope="col">Since</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>
${o.operators.map(
  (m) => html`<tr>
<td class="wrap">${m.name || '—'}</td>
<td class="wrap">${m.email}</td>
<td>${badge(m.status)}</td>
<td>${m.twoFactor ? 'on' : 'off'}</td>
<td>${time(m.createdAt)}</td>
<td class="actions">${m.id === o.selfId ? '' : m.status === 'active' ? action(m, 'disable', 'Disable') : m.status === 'disabled' ? action(m, 'enable', 'Enable') : ''}</td>
</tr>`,
)}
</tbody></table></div>
<h2>Invite an operator</h2>
<p>${o.mailed ? 'They get an e-mail with a link to set their password.' : 'You get a link to pass on (SMTP is not configured).'} The link works once, for 72 hours.</p>
${formErrors(o.errors)}
<form method="post" action="${basePath}/operator/operators" novalidate>
${csrfField(o.csrfToken)}
${input({ name: 'name', label: 'Name', value: o.values.name, required: true, maxlength: 100, error: o.fieldErrors.name })}
${input({ name: 'email', label: 'E-mail', type: 'email', value: o.values.email, required: true, maxlength: 254, error: o.fieldErrors.email })}
<button type="submit">Invite</button>
</form>`;
}
