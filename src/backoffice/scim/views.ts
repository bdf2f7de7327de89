import type { ScimTokenView } from '../../scim/index.js';
import { badge, time } from '../web/format.js';
import { csrfField, type FieldErrors, formErrors, input } from '../web/forms.js';
import { type Html, html, segment } from '../web/html.js';
import { basePath } from '../web/layout.js';

/** The tenant's SCIM tokens, the address to give the provider, and a new token shown once. */
export function scimPage(o: {
  baseUrl: string;
  tokens: readonly ScimTokenView[];
  /** A token just made in this session, shown this once. */
  created: { name: string; token: string } | undefined;
  /** Whether the reader may make and revoke tokens (`users:edit`). */
  mayEdit: boolean;
  csrfToken: string;
  name: string;
  errors: string[];
  fieldErrors: FieldErrors;
  zone: string;
}): Html {
  return html`<hgroup><h1>SCIM provisioning</h1><p>Settings</p></hgroup>
<p>Your identity provider (Microsoft Entra ID, Okta) adds, changes, deactivates and removes your team's users here, and gives them roles through its groups: each of your roles is a group of the same name. A deactivated user's sessions end at once. Every change is in the audit log, made by the token.</p>
<dl>
<dt>Tenant URL (SCIM base URL)</dt><dd class="mono">${o.baseUrl}</dd>
<dt>Secret token</dt><dd>A token below, sent as <code>Authorization: Bearer scim_…</code></dd>
</dl>
${
  o.created
    ? html`<article>
<p><strong>Copy the token now: it is shown only this once.</strong> Paste it into your identity provider; only a hash of it is kept here.</p>
<p><label for="new-token">Token "${o.created.name}"</label></p>
<output id="new-token" class="key-once">${o.created.token}</output>
<p><button type="button" data-copy="new-token" hidden>Copy</button></p>
</article>`
    : ''
}
${
  o.tokens.length === 0
    ? html`<p>No token yet.</p>`
    : html`<div class="table-scroll" tabindex="0" role="region" aria-label="SCIM tokens"><table>
<thead><tr><th scope="col">Name</th><th scope="col">Token</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Status</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>
${o.tokens.map(
  (t) => html`<tr>
<td class="wrap">${t.name}</td>
<td class="mono">${t.prefix}…</td>
<td>${time(t.createdAt, o.zone)} <small>${t.createdBy}</small></td>
<td>${time(t.lastUsedAt, o.zone)}</td>
<td>${t.revokedAt ? html`${badge('revoked')} ${time(t.revokedAt, o.zone)}` : badge('active')}</td>
<td>${t.revokedAt || !o.mayEdit ? '' : html`<a href="${basePath}/settings/scim/${segment(t.id)}/revoke">Revoke<span class="visually-hidden"> ${t.name}</span>…</a>`}</td>
</tr>`,
)}
</tbody></table></div>`
}
${
  o.mayEdit
    ? html`<h2>Create a token</h2>
${formErrors(o.errors)}
<form method="post" action="${basePath}/settings/scim" novalidate>
${csrfField(o.csrfToken)}
${input({ name: 'name', label: 'Name', value: o.name, required: true, maxlength: 100, hint: 'Who will use it, such as "Entra ID".', error: o.fieldErrors.name })}
<button type="submit">Create token</button>
</form>`
    : ''
}`;
}

export function revokeConfirmation(token: ScimTokenView, csrfToken: string): Html {
  return html`<article>
<h1>Revoke token "${token.name}"?</h1>
<p>Your identity provider's requests with the token <span class="mono">${token.prefix}…</span> are refused (<code>401</code>) from the next one: provisioning stops until it has a new token. This cannot be undone.</p>
<form method="post" action="${basePath}/settings/scim/${segment(token.id)}/revoke" class="actions">
${csrfField(csrfToken)}
<button type="submit">Revoke the token</button>
<a href="${basePath}/settings/scim" class="secondary">Cancel</a>
</form>
</article>`;
}
