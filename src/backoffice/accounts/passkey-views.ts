import { type Passkey, passkeyNameLength } from '../../accounts/index.js';
import { time } from '../web/format.js';
import { csrfField, formErrors, input } from '../web/forms.js';
import { type Html, html } from '../web/html.js';
import { basePath } from '../web/layout.js';

/**
 * A form that runs a passkey ceremony through the back-office's script (`assets.ts`): hidden
 * until the script finds WebAuthn in the browser, and sent with the browser's answer.
 */
export function passkeyForm(o: {
  csrfToken: string;
  kind: 'register' | 'sign-in';
  action: string;
  options: string;
  fields: Html;
  button: string;
}): Html {
  return html`<form method="post" action="${basePath}${o.action}" data-passkey="${o.kind}" data-options="${basePath}${o.options}" hidden>
${csrfField(o.csrfToken)}
<input type="hidden" name="credential" value="">
${o.fields}
<button type="submit">${o.button}</button>
<p class="field-error" aria-live="assertive" data-passkey-error></p>
</form>`;
}

/** The sign-in page's way in with a passkey. */
export function passkeySignIn(csrfToken: string, next: string): Html {
  return passkeyForm({
    csrfToken,
    kind: 'sign-in',
    action: '/sign-in/passkey',
    options: '/sign-in/passkey/options',
    fields: html`<input type="hidden" name="next" value="${next}">`,
    button: 'Use a passkey',
  });
}

export function passkeysPage(o: {
  csrfToken: string;
  passkeys: readonly Passkey[];
  /** Why the person is here before anything else: their role signs in with a passkey. */
  required: boolean;
  zone: string;
  errors?: string[];
  fieldErrors?: Record<string, string>;
}): Html {
  const rows = o.passkeys.map(
    (p) => html`<tr>
<td>${p.name}</td>
<td>${p.synced ? 'Synced between your devices' : 'On one device'}</td>
<td class="nowrap">${time(p.createdAt, o.zone)}</td>
<td class="nowrap">${p.lastUsedAt ? time(p.lastUsedAt, o.zone) : html`<span class="muted">never</span>`}</td>
<td><div class="actions">
<form method="post" action="${basePath}/account/passkeys/${p.id}/rename">${csrfField(o.csrfToken)}
<label class="visually-hidden" for="name-${p.id}">New name of ${p.name}</label>
<input id="name-${p.id}" name="name" value="${p.name}" maxlength="${passkeyNameLength}" required>
<button type="submit" class="secondary">Rename</button></form>
<form method="post" action="${basePath}/account/passkeys/${p.id}/remove">${csrfField(o.csrfToken)}<button type="submit" class="secondary">Remove ${p.name}</button></form>
</div></td>
</tr>`,
  );
  return html`<h1>Passkeys</h1>
${o.required ? html`<p class="notice" role="status">Your role signs in with a passkey: add one to go on.</p>` : ''}
<p>A passkey signs you in with your device's screen lock (a fingerprint, your face, a PIN) or a security key, instead of your password. It works only on this site, so a look-alike page cannot use it. You can add several: one per device, or a spare security key.</p>
${formErrors(o.errors ?? [])}
${
  o.passkeys.length === 0
    ? html`<p>You have no passkey yet.</p>`
    : html`<div class="table-scroll"><table>
<thead><tr><th scope="col">Name</th><th scope="col">Kind</th><th scope="col">Added</th><th scope="col">Last used</th><th scope="col">Actions</th></tr></thead>
<tbody>${rows}</tbody></table></div>`
}
<h2>Add a passkey</h2>
${passkeyForm({
  csrfToken: o.csrfToken,
  kind: 'register',
  action: '/account/passkeys',
  options: '/account/passkeys/options',
  fields: input({
    name: 'name',
    label: 'Name',
    maxlength: passkeyNameLength,
    hint: 'To tell it from your others, such as “Work laptop” or “Blue security key”.',
    error: o.fieldErrors?.name,
  }),
  button: 'Add a passkey',
})}
<noscript><p>Adding a passkey needs JavaScript in this browser.</p></noscript>`;
}
