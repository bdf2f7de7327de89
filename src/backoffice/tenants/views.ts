import type { TenantSummary } from '../../tenants/index.js';
import { badge, time } from '../web/format.js';
import { csrfField, type FieldErrors, formErrors, input } from '../web/forms.js';
import { type Html, html, segment } from '../web/html.js';
import { basePath } from '../web/layout.js';

export function tenantList(tenants: TenantSummary[], csrfToken: string): Html {
  return html`<hgroup><h1>Tenants</h1><p>Client organisations registered with the service.</p></hgroup>
<p><a href="${basePath}/operator/tenants/new" role="button">Register a tenant</a></p>
${
  tenants.length === 0
    ? html`<p>No tenant yet.</p>`
    : html`<div class="table-scroll" tabindex="0" role="region" aria-label="Tenants"><table>
<thead><tr><th scope="col">Alias</th><th scope="col">First admin's e-mail</th><th scope="col">Registered</th><th scope="col">Status</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>
${tenants.map(
  (t) => html`<tr>
<td class="mono"><a href="${basePath}/operator/tenants/${segment(t.id)}">${t.alias}</a></td>
<td class="wrap">${t.email}</td>
<td>${time(t.created_at)}</td>
<td>${t.disabled_at ? html`${badge('disabled')} ${time(t.disabled_at)}` : badge('active')}</td>
<td>${
    t.disabled_at
      ? html`<form method="post" action="${basePath}/operator/tenants/${segment(t.id)}/enable">${csrfField(csrfToken)}<button type="submit" class="secondary outline">Enable<span class="visually-hidden"> ${t.alias}</span></button></form>`
      : html`<a href="${basePath}/operator/tenants/${segment(t.id)}/disable">Disable<span class="visually-hidden"> ${t.alias}</span>…</a>`
  }</td>
</tr>`,
)}
</tbody></table></div>`
}`;
}

export function newTenantForm(o: {
  csrfToken: string;
  values: { alias: string; name: string; email: string };
  errors: string[];
  fieldErrors: FieldErrors;
  /** Whether the invitation goes by e-mail (SMTP is configured), or is shown to pass on. */
  mailed: boolean;
}): Html {
  return html`<nav aria-label="breadcrumb"><ul><li><a href="${basePath}/operator/tenants">Tenants</a></li><li>Register</li></ul></nav>
<h1>Register a tenant</h1>
<p>Name the tenant and its first admin. ${
    o.mailed
      ? 'The admin gets an e-mail with a link to set their own password'
      : 'You get a link to pass on to the admin (no e-mail is sent: SMTP is not configured); with it they set their own password'
  }, then invites the rest of their team, each with their own sign-in. The link works once, for 72 hours.</p>
${formErrors(o.errors)}
<form method="post" action="${basePath}/operator/tenants" novalidate>
${csrfField(o.csrfToken)}
${input({ name: 'alias', label: 'Alias', value: o.values.alias, required: true, maxlength: 64, error: o.fieldErrors.alias })}
${input({ name: 'name', label: "Admin's name", value: o.values.name, required: true, maxlength: 100, autocomplete: 'off', error: o.fieldErrors.name })}
${input({ name: 'email', label: "Admin's e-mail", type: 'email', value: o.values.email, required: true, maxlength: 254, autocomplete: 'off', error: o.fieldErrors.email })}
<button type="submit">Register tenant</button>
</form>`;
}

export function disableConfirmation(tenant: TenantSummary, csrfToken: string): Html {
  return html`<article>
<h1>Disable tenant ${tenant.alias}?</h1>
<p>Its API keys are refused (<code>401</code>) within a second, and its users are signed out at once and cannot sign in. Its records are kept; enabling it again restores access.</p>
<form method="post" action="${basePath}/operator/tenants/${segment(tenant.id)}/disable" class="actions">
${csrfField(csrfToken)}
<button type="submit">Disable ${tenant.alias}</button>
<a href="${basePath}/operator/tenants" class="secondary">Cancel</a>
</form>
</article>`;
}
