import type { TenantSettings } from '../../tenants/index.js';
import { checkbox, csrfField, type FieldErrors, select } from '../web/forms.js';
import { type Html, html } from '../web/html.js';
import { basePath } from '../web/layout.js';
import { currentZoneName, zoneChoices } from '../web/time-zone.js';

export function settingsForm(o: {
  csrfToken: string;
  settings: TenantSettings;
  errors: Html;
  fieldErrors?: FieldErrors;
  mayEdit: boolean;
  /** Whether the reader sees the team's users, and so the SCIM tokens (`users:view`). */
  mayViewUsers: boolean;
}): Html {
  const addressError = o.fieldErrors?.cookie_address;
  const fields = html`<fieldset${o.mayEdit ? '' : html` disabled`}>
${select({ name: 'time_zone', label: 'Time zone', value: currentZoneName(o.settings.timeZone), options: zoneChoices.map((z) => [z, z] as const) })}
<small>The back-office shows dates in this zone, and every filter and export reads its days in it. Records keep their times in UTC: a CSV gives each exact time in UTC and its day in this zone.</small>
${checkbox({ name: 'four_eyes', label: 'Four eyes on every version', checked: o.settings.fourEyes, hint: "Whoever wrote any of a version's text, and whoever submitted it, can neither pass its review nor approve it. Turn it off only for a one-person team: each change of it is in the audit log." })}
${checkbox({ name: 'distinct_approver', label: 'Another person approves than the one who reviewed', checked: o.settings.distinctApprover, hint: "Whoever passed a version's review cannot approve it too." })}
${checkbox({ name: 'two_factor_required', label: 'Require two-factor sign-in of every user', checked: o.settings.twoFactorRequired, hint: 'A user without it is asked to set it up at their next page, before anything else.' })}
${select({
  name: 'cookie_address',
  label: "How a cookie choice keeps the visitor's address",
  value: o.settings.cookieAddress,
  options: [
    ['truncated', 'Truncated: its network only (IPv4 /24, IPv6 /48)'],
    ['full', 'Full: the whole address'],
    ['hashed', 'Keyed hash: the same address gives the same value, not the address'],
  ],
})}
${addressError ? html`<small class="field-error">${addressError}</small>` : html`<small>For the choices recorded from a second after saving; those recorded before keep what they kept.</small>`}
</fieldset>`;
  // Who may only read the settings sees them as the form's disabled fields, in no form.
  return html`<hgroup><h1>Settings</h1><p>Administration</p></hgroup>
<p>How your customers' own page looks, and the sites it returns to: <a href="${basePath}/preference-centre">Preference centre</a>.</p>
<p>How your team signs in through your identity provider: <a href="${basePath}/settings/sso">Single sign-on</a>.</p>
<p>What each role must sign in with (a second factor, a passkey): <a href="${basePath}/settings/sign-in">Sign-in requirements</a>.</p>
${o.mayViewUsers ? html`<p>How your identity provider adds and removes your team's users: <a href="${basePath}/settings/scim">SCIM provisioning</a>.</p>` : ''}
${o.errors}
${
  o.mayEdit
    ? html`<form method="post" action="${basePath}/settings">
${csrfField(o.csrfToken)}
${fields}
<button type="submit">Save</button>
</form>`
    : fields
}`;
}
