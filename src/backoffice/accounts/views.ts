import { csrfField, type FieldErrors, formErrors, input } from '../web/forms.js';
import { type Html, html } from '../web/html.js';
import { basePath } from '../web/layout.js';
import { passkeySignIn } from './passkey-views.js';

export function signInForm(o: {
  csrfToken: string;
  email: string;
  next: string;
  errors: string[];
  fieldErrors?: FieldErrors | undefined;
  ssoSignOut?: string | undefined;
}): Html {
  return html`<article class="sign-in">
${o.ssoSignOut ? html`<p>You are still signed in at your organisation’s identity provider. <a href="${basePath}/sso/${encodeURIComponent(o.ssoSignOut)}/sign-out">Sign out there too</a></p>` : ''}
<h1>Sign in</h1>
<p>Sign in with your own e-mail and password: a team member's, or an operator's.</p>
${formErrors(o.errors)}
<form method="post" action="${basePath}/sign-in" novalidate>
${csrfField(o.csrfToken)}
<input type="hidden" name="next" value="${o.next}">
${input({ name: 'email', label: 'E-mail', type: 'email', value: o.email, required: true, autocomplete: 'username', error: o.fieldErrors?.email })}
${input({ name: 'password', label: 'Password', type: 'password', required: true, autocomplete: 'current-password', error: o.fieldErrors?.password })}
<button type="submit">Sign in</button>
</form>
${passkeySignIn(o.csrfToken, o.next)}
<p><a href="${basePath}/forgot-password">Forgot your password?</a></p>
<p><a href="${basePath}/sso${o.next ? `?next=${encodeURIComponent(o.next)}` : ''}">Sign in with single sign-on</a></p>
</article>`;
}

export function passwordForm(o: {
  csrfToken: string;
  errors: string[];
  fieldErrors: Record<string, string>;
}): Html {
  return html`<h1>Change password</h1>
<p>Changing the password signs out every other browser signed in to this account.</p>
${formErrors(o.errors)}
<form method="post" action="${basePath}/account/password" novalidate>
${csrfField(o.csrfToken)}
${input({ name: 'current_password', label: 'Current password', type: 'password', required: true, autocomplete: 'current-password', error: o.fieldErrors.current_password })}
${input({ name: 'new_password', label: 'New password', type: 'password', required: true, autocomplete: 'new-password', hint: 'At least 10 characters, and not easy to guess: several uncommon words work well.', error: o.fieldErrors.new_password })}
${input({ name: 'confirm_password', label: 'New password again', type: 'password', required: true, autocomplete: 'new-password', error: o.fieldErrors.confirm_password })}
<button type="submit">Change password</button>
</form>`;
}

export function linkPasswordForm(o: {
  csrfToken: string;
  token: string;
  email: string;
  purpose: 'invitation' | 'password_reset';
  errors: string[];
  fieldErrors: Record<string, string>;
}): Html {
  return html`<article class="sign-in">
<h1>${o.purpose === 'invitation' ? 'Welcome: set your password' : 'Set a new password'}</h1>
<p>For <strong>${o.email}</strong>. You then sign in with this e-mail and the new password.</p>
${formErrors(o.errors)}
<form method="post" action="${basePath}/password" novalidate>
${csrfField(o.csrfToken)}
<input type="hidden" name="token" value="${o.token}">
<input type="email" name="email" value="${o.email}" autocomplete="username" aria-label="E-mail" hidden>
${input({ name: 'new_password', label: 'New password', type: 'password', required: true, autocomplete: 'new-password', hint: 'At least 10 characters, and not easy to guess: several uncommon words work well.', error: o.fieldErrors.new_password })}
${input({ name: 'confirm_password', label: 'New password again', type: 'password', required: true, autocomplete: 'new-password', error: o.fieldErrors.confirm_password })}
<button type="submit">Set the password</button>
</form>
</article>`;
}

export function linkGone(): Html {
  return html`<article class="sign-in">
<h1>This link no longer works</h1>
<p>A link to set a password works once, for a limited time, and a newer link replaces it. Ask an admin of your team for a new one${''}, or <a href="${basePath}/sign-in">sign in</a> if your password is set.</p>
</article>`;
}

export function forgotPasswordForm(o: { csrfToken: string; mailed: boolean; sent: boolean }): Html {
  if (!o.mailed) {
    return html`<article class="sign-in">
<h1>Forgot your password?</h1>
<p>Ask an admin of your team for a password link (on your page under Users). An admin who is locked out asks the operator of this service.</p>
<p><a href="${basePath}/sign-in">Back to sign in</a></p>
</article>`;
  }
  return html`<article class="sign-in">
<h1>Forgot your password?</h1>
${
  o.sent
    ? html`<p role="status">If an account has this e-mail, a link to set a new password is on its way. It works once, for one hour.</p>`
    : html`<p>Type your e-mail: we send a link to set a new password.</p>`
}
<form method="post" action="${basePath}/forgot-password" novalidate>
${csrfField(o.csrfToken)}
${input({ name: 'email', label: 'E-mail', type: 'email', required: true, autocomplete: 'username', maxlength: 254 })}
<button type="submit">Send the link</button>
</form>
<p><a href="${basePath}/sign-in">Back to sign in</a></p>
</article>`;
}
