import type { TeamMember } from '../../accounts/index.js';
import type { TenantSummary } from '../../tenants/index.js';
import { badge, time } from '../web/format.js';
import { csrfField, formErrors } from '../web/forms.js';
import { type Html, html, segment } from '../web/html.js';
import { basePath } from '../web/layout.js';

/** A tenant's admins as the operator sees them, with the ways back in for a locked-out one. */
export function tenantAdminsPage(o: {
  tenant: TenantSummary;
  admins: TeamMember[];
  csrfToken: string;
  errors: string[];
}): Html {
  const base = `${basePath}/operator/tenants/${segment(o.tenant.id)}/users`;
  const action = (m: TeamMember, path: string, label: string) =>
    html`<form method="post" action="${base}/${segment(m.id)}/${path}">${csrfField(o.csrfToken)}<button type="submit" class="secondary outline">${label}<span class="visually-hidden"> for ${m.email}</span></button></form>`;
  return html`<nav aria-label="breadcrumb"><ul><li><a href="${basePath}/operator/tenants">Tenants</a></li><li>${o.tenant.alias}</li></ul></nav>
<hgroup><h1>${o.tenant.alias}</h1><p>${o.tenant.disabled_at ? badge('disabled') : badge('active')} registered ${time(o.tenant.created_at)}</p></hgroup>
<p>When a tenant's admins are locked out (a lost password or second factor), the operator can send one of them a password link or reset their second factor. Both are audited under the tenant.</p>
${formErrors(o.errors)}
<h2>Admins</h2>
<div class="table-scroll" tabindex="0" role="region" aria-label="Admins"><table>
<thead><tr><th scope="col">Name</th><th scope="col">E-mail</th><th scope="col">Status</th><th scope="col">Two-factor</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>
${o.admins.map(
  (m) => html`<tr>
<td class="wrap">${m.name}</td>
<td class="wrap">${m.email}</td>
<td>${badge(m.status)}</td>
<td>${m.twoFactor ? 'on' : 'off'}</td>
<td class="actions">${m.status === 'disabled' ? '' : action(m, 'link', 'Send a password link')}${m.twoFactor || m.passkeys > 0 ? action(m, 'two-factor-reset', m.passkeys > 0 ? 'Reset second factor and passkeys' : 'Reset second factor') : ''}</td>
</tr>`,
)}
</tbody></table></div>`;
}
