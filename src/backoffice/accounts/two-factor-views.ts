import type { TwoFactorState } from '../../accounts/index.js';
import { time } from '../web/format.js';
import { csrfField, formErrors, input } from '../web/forms.js';
import { type Html, html, trusted } from '../web/html.js';
import { basePath } from '../web/layout.js';

const codeField = (error?: string) =>
  input({
    name: 'code',
    label: 'Code from your authenticator app',
    required: true,
    autocomplete: 'one-time-code',
    maxlength: 20,
    hint: 'Six digits, or one of your recovery codes.',
    error,
  });

export function codeForm(o: { csrfToken: string; email: string; errors: string[] }): Html {
  return html`<article class="sign-in">
<h1>Two-factor sign-in</h1>
<p>Your password for <strong>${o.email}</strong> was right. Type the code your authenticator app shows now.</p>
${formErrors(o.errors)}
<form method="post" action="${basePath}/sign-in/code" novalidate>
${csrfField(o.csrfToken)}
${input({ name: 'code', label: 'Code', required: true, autocomplete: 'one-time-code', maxlength: 20, hint: 'Six digits. Lost your phone? Type one of your recovery codes instead.' })}
<button type="submit">Sign in</button>
</form>
<p><a href="${basePath}/sign-in">Start again</a></p>
</article>`;
}

export function twoFactorPage(o: {
  csrfToken: string;
  state: TwoFactorState;
  required: boolean;
  zone: string;
  errors?: string[];
}): Html {
  if (!o.state.enabled) {
    return html`<h1>Two-factor sign-in</h1>
${o.required ? html`<p class="notice" role="status">Your team requires two-factor sign-in: set it up to go on.</p>` : ''}
<p>With two-factor sign-in, a stolen password is not enough: signing in also asks for a code from an authenticator app on your phone (any app for TOTP codes, such as those of Google, Microsoft, 1Password or Aegis).</p>
${formErrors(o.errors ?? [])}
<form method="post" action="${basePath}/account/two-factor/setup">${csrfField(o.csrfToken)}<button type="submit">Set up two-factor sign-in</button></form>`;
  }
  return html`<h1>Two-factor sign-in</h1>
<p role="status">On since ${time(o.state.since, o.zone)}. Recovery codes left: ${o.state.recoveryCodesLeft} of 10.</p>
${formErrors(o.errors ?? [])}
<h2>New recovery codes</h2>
<p>The old ones stop working. Confirm with a code from your app.</p>
<form method="post" action="${basePath}/account/two-factor/recovery-codes" novalidate>${csrfField(o.csrfToken)}
${codeField()}
<button type="submit" class="secondary">Make new recovery codes</button></form>
${
  o.required
    ? html`<p>Your team requires two-factor sign-in, so it cannot be turned off. An admin can reset it if you lose your phone and your recovery codes.</p>`
    : html`<h2>Turn off</h2>
<form method="post" action="${basePath}/account/two-factor/disable" novalidate>${csrfField(o.csrfToken)}
${input({ name: 'code', label: 'Code from your authenticator app', required: true, autocomplete: 'one-time-code', maxlength: 20 })}
<button type="submit" class="secondary">Turn two-factor sign-in off</button></form>`
}`;
}

export function enrolPage(o: {
  csrfToken: string;
  secret: string;
  qrSvg: string;
  error?: string;
}): Html {
  const grouped = o.secret.replace(/(.{4})/g, '$1 ').trim();
  return html`<h1>Set up two-factor sign-in</h1>
<ol>
<li>In your authenticator app, add an account by scanning this QR code.
<figure class="qr-code">${trusted(o.qrSvg)}</figure>
Or type this key: <output class="key-once" id="totp-secret">${grouped}</output></li>
<li>Type the six-digit code the app then shows.</li>
</ol>
<form method="post" action="${basePath}/account/two-factor/confirm" novalidate>${csrfField(o.csrfToken)}
${input({ name: 'code', label: 'Code', required: true, autocomplete: 'one-time-code', maxlength: 20, error: o.error })}
<button type="submit">Turn on</button></form>`;
}

export function recoveryCodesPage(codes: readonly string[], first: boolean): Html {
  return html`<h1>${first ? 'Two-factor sign-in is on' : 'New recovery codes'}</h1>
<p><strong>Keep these recovery codes somewhere safe: they are shown only this once.</strong> Each signs you in once if you lose your phone.</p>
<ul class="recovery-codes mono" id="recovery-codes">${codes.map((c) => html`<li>${c}</li>`)}</ul>
<p><a href="${basePath}/account/two-factor">Done</a></p>`;
}
