import type { ApiKeyView, CreatedApiKey } from '../../api-keys/index.js';
import { badge, time } from '../web/format.js';
import { csrfField, type FieldErrors, formErrors, input } from '../web/forms.js';
import { type Html, html, segment } from '../web/html.js';
import { basePath } from '../web/layout.js';

/** Both visible ends of a key, `csk_1a2b3c4d5e6f…wxyz` (the prefix alone for older keys). */
export const keyEnds = (k: Pick<ApiKeyView, 'prefix' | 'last_four'>) =>
  `${k.prefix}…${k.last_four ?? ''}`;

export function apiKeyList(o: {
  keys: ApiKeyView[];
  /** What the list is searched by (part of a name, a prefix, the last four), if anything. */
  search: string;
  /** What the reader may do beyond reading: create keys, revoke them. */
  may: { create: boolean; revoke: boolean };
  csrfToken: string;
  name: string;
  errors: string[];
  fieldErrors: FieldErrors;
  zone: string;
}): Html {
  return html`<hgroup><h1>API Key Management</h1><p>Administration</p></hgroup>
<p>Client systems send a key in the <code>x-system-api-key</code> header. A key is shown once, when it is created; only a hash of it is kept.</p>
<form method="get" action="${basePath}/api-keys" class="filters" role="search">
${input({ name: 'q', label: 'Search keys by name, prefix or last four characters', type: 'search', value: o.search, maxlength: 100, hint: 'Part of a name; the start of a prefix such as csk_1a2b; or the four characters a key ends with.' })}
<button type="submit" class="secondary">Find</button>
</form>
${
  o.keys.length === 0
    ? html`<p>${o.search ? html`No key's name, prefix or last four match "${o.search}". <a href="${basePath}/api-keys">All keys</a>` : 'No key yet.'}</p>`
    : html`<div class="table-scroll" tabindex="0" role="region" aria-label="API keys"><table>
<thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Status</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>
${o.keys.map(
  (k) => html`<tr>
<td class="wrap"><a href="${basePath}/api-keys/${segment(k.id)}">${k.name}</a></td>
<td class="mono">${keyEnds(k)}</td>
<td>${time(k.created_at, o.zone)}</td>
<td>${time(k.last_used_at, o.zone)}</td>
<td>${k.revoked_at ? html`${badge('revoked')} ${time(k.revoked_at, o.zone)}` : badge('active')}</td>
<td>${k.revoked_at || !o.may.revoke ? '' : html`<a href="${basePath}/api-keys/${segment(k.id)}/revoke">Revoke<span class="visually-hidden"> ${k.name}</span>…</a>`}</td>
</tr>`,
)}
</tbody></table></div>`
}
${
  o.may.create
    ? html`<h2>Create a key</h2>
${formErrors(o.errors)}
<form method="post" action="${basePath}/api-keys" novalidate>
${csrfField(o.csrfToken)}
${input({ name: 'name', label: 'Name', value: o.name, required: true, maxlength: 100, hint: 'The client system that will use it, e.g. "mobile app".', error: o.fieldErrors.name })}
<button type="submit">Create key</button>
</form>`
    : ''
}`;
}

export function createdKey(key: CreatedApiKey & ApiKeyView): Html {
  return html`<h1>Key created</h1>
<p><strong>Copy the key now: it is shown only this once.</strong> Keep it in the client system's secret store.</p>
<p><label for="new-key">Key "${key.name}"</label></p>
<output id="new-key" class="key-once">${key.key}</output>
<p><button type="button" data-copy="new-key" hidden>Copy</button></p>
<p>Prefix (to recognise it later): <span class="mono">${key.prefix}</span></p>
<p><a href="${basePath}/api-keys">Back to API Key Management</a></p>`;
}

/** A key's page once its secret was shown: it never is again. */
export function keyDetails(
  key: ApiKeyView,
  zone: string,
  rename?: { csrfToken: string; name: string; errors: string[]; fieldErrors: FieldErrors },
): Html {
  return html`<nav aria-label="breadcrumb"><ul><li><a href="${basePath}/api-keys">API Key Management</a></li><li>${key.name}</li></ul></nav>
<h1>Key "${key.name}"</h1>
<dl class="facts">
<dt>Key</dt><dd class="mono">${keyEnds(key)}</dd>
<dt>Created</dt><dd>${time(key.created_at, zone)}</dd>
<dt>Last used</dt><dd>${time(key.last_used_at, zone)}</dd>
<dt>Status</dt><dd>${key.revoked_at ? html`${badge('revoked')} ${time(key.revoked_at, zone)}` : badge('active')}</dd>
</dl>
<p role="status">The key itself was shown once, when it was created, and cannot be shown again: only a hash of it is kept. If it was not copied, revoke this key and create a new one.</p>
${
  rename
    ? html`<h2>Rename</h2>
${formErrors(rename.errors)}
<form method="post" action="${basePath}/api-keys/${segment(key.id)}" novalidate>
${csrfField(rename.csrfToken)}
${input({ name: 'name', label: 'Name', value: rename.name, required: true, maxlength: 100, hint: 'The client system that uses it. Its secret and prefix stay as they are.', error: rename.fieldErrors.name })}
<button type="submit">Rename</button>
</form>`
    : ''
}
<p><a href="${basePath}/api-keys">Back to API Key Management</a></p>`;
}

export function revokeConfirmation(key: ApiKeyView, csrfToken: string): Html {
  return html`<article>
<h1>Revoke key "${key.name}"?</h1>
<p>Requests with the key <span class="mono">${key.prefix}…</span> are refused (<code>401</code>) within a second, on every instance. This cannot be undone; create a new key to replace it.</p>
<form method="post" action="${basePath}/api-keys/${segment(key.id)}/revoke" class="actions">
${csrfField(csrfToken)}
<button type="submit">Revoke the key</button>
<a href="${basePath}/api-keys" class="secondary">Cancel</a>
</form>
</article>`;
}
