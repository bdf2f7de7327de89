import type { SsoFailure } from '../../sso/index.js';
import { formErrors, input } from '../web/forms.js';
import { type Html, html } from '../web/html.js';
import { basePath } from '../web/layout.js';

/** The page that asks which organisation's provider to sign in with. */
export function organisationForm(o: {
  organisation: string;
  next: string;
  errors: string[];
}): Html {
  return html`<article>
<h1>Sign in with single sign-on</h1>
<p>Your organisation signs you in through its identity provider (Microsoft Entra ID, Okta, Keycloak, Google Workspace…). Give its name here, as your administrator told you, or use the link they gave you.</p>
${formErrors(o.errors)}
<form method="get" action="${basePath}/sso">
${input({ name: 'organisation', label: 'Organisation', value: o.organisation, required: true, maxlength: 64, autocomplete: 'organization' })}
<input type="hidden" name="next" value="${o.next}">
<button type="submit">Continue</button>
</form>
<p><a href="${basePath}/sign-in">Sign in with a password instead</a></p>
</article>`;
}

/** The organisation's own link to its provider's sign-in, to follow and to keep. */
export function continueLink(href: string, organisation: string): Html {
  return html`<article>
<h1>Sign in with single sign-on</h1>
<p><a href="${href}" role="button">Continue to ${organisation}’s sign-in</a></p>
<p><small>Keep this link to come straight here next time: <span class="mono">${href}</span></small></p>
</article>`;
}

/** What a person is told when their provider's sign-in let them in nowhere. */
const failures: Record<SsoFailure, string> = {
  'not-configured': 'This organisation has not set up single sign-on.',
  'provider-unavailable':
    'Your organisation’s identity provider did not answer. Try again in a moment; if it keeps failing, tell your administrator.',
  'invalid-response':
    'The identity provider’s answer could not be trusted, so nobody was signed in: a check of its signature, issuer, audience or timing failed, or the provider refused this service’s client id or secret. Tell your administrator: the audit log says what failed.',
  expired: 'The sign-in took too long or was started elsewhere. Start it again.',
  'no-email':
    'Your identity provider did not say your e-mail address, so you cannot be matched to a user here.',
  'email-unverified': 'Your identity provider says your e-mail address is not verified.',
  'unknown-user':
    'There is no user with your e-mail address here, and this organisation does not add users when they first sign in. Ask your administrator to invite you.',
  'other-tenant': 'Your e-mail address belongs to an account outside this organisation.',
  disabled: 'Your account here is disabled.',
  'no-role': 'None of your groups gives you a role here. Ask your administrator.',
  'last-admin':
    'Your groups would take the Admin role away from the organisation’s last admin, so you were not signed in. Ask your administrator.',
};

export function failurePage(failure: SsoFailure): Html {
  return html`<article>
<h1>Single sign-on did not sign you in</h1>
<p role="alert">${failures[failure]}</p>
<p><a href="${basePath}/sso">Try again</a> · <a href="${basePath}/sign-in">Sign in with a password</a></p>
</article>`;
}

/** A provider with no end-session endpoint (or none reachable): the person signs out there. */
export function noProviderSignOut(): Html {
  return html`<article>
<h1>Sign out at your provider</h1>
<p>You are signed out of the back-office. Your organisation’s identity provider offers no way to sign out from here: sign out on its own page, or close the browser.</p>
<p><a href="${basePath}/sign-in">Sign in again</a></p>
</article>`;
}
