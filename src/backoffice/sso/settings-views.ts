import type { Role, TeamMember } from '../../accounts/index.js';
import type { SsoSettings } from '../../sso/index.js';
import {
  checkbox,
  csrfField,
  type FieldErrors,
  formErrors,
  input,
  select,
  textarea,
} from '../web/forms.js';
import { type Html, html } from '../web/html.js';
import { basePath } from '../web/layout.js';

/** The form's values, as typed (a failed save shows them again). */
export interface SsoFormValues {
  issuer: string;
  client_id: string;
  email_claim: string;
  groups_claim: string;
  group_roles: string;
  create_users: boolean;
  required: boolean;
  break_glass_user_id: string;
}

export function ssoValues(
  settings: SsoSettings | undefined,
  roles: readonly Role[],
): SsoFormValues {
  const nameOf = new Map(roles.map((role) => [role.id, role.name]));
  return {
    issuer: settings?.issuer ?? '',
    client_id: settings?.clientId ?? '',
    email_claim: settings?.emailClaim ?? 'email',
    groups_claim: settings?.groupsClaim ?? 'groups',
    group_roles: (settings?.groupRoles ?? [])
      .map(({ group, role }) => `${group} = ${nameOf.get(role) ?? role}`)
      .join('\n'),
    create_users: settings?.createUsers ?? false,
    required: settings?.required ?? false,
    break_glass_user_id: settings?.breakGlassUserId ?? '',
  };
}

/** The tenant's single sign-on settings, with the values to copy into the provider. */
export function ssoSettingsPage(o: {
  csrfToken: string;
  alias: string;
  redirectUri: string;
  signInUrl: string;
  configured: boolean;
  values: SsoFormValues;
  /** Users who may be the break-glass user: active, with a second factor. */
  candidates: readonly TeamMember[];
  errors: string[];
  fieldErrors: FieldErrors;
  mayEdit: boolean;
}): Html {
  const v = o.values;
  const f = o.fieldErrors;
  return html`<h1>Single sign-on</h1>
<p>Your team signs in through your identity provider with OpenID Connect (Microsoft Entra ID, Okta, Keycloak, Google Workspace). Register this back-office at the provider as a web application with these values, then fill in what it gives you.</p>
<dl>
<dt>Redirect URI (sign-in callback)</dt><dd class="mono">${o.redirectUri}</dd>
<dt>Sign-in link for your team</dt><dd class="mono">${o.signInUrl}</dd>
</dl>
${formErrors(o.errors)}
${
  o.mayEdit
    ? html`<form method="post" action="${basePath}/settings/sso" novalidate>
${csrfField(o.csrfToken)}
${input({ name: 'issuer', label: 'Issuer URL', value: v.issuer, required: true, maxlength: 500, hint: 'Such as https://login.microsoftonline.com/<tenant id>/v2.0 or https://keycloak.bank.example/realms/staff', error: f.issuer })}
${input({ name: 'client_id', label: 'Client id', value: v.client_id, required: true, maxlength: 200, error: f.client_id })}
${input({ name: 'client_secret', label: o.configured ? 'Client secret (leave empty to keep the one saved)' : 'Client secret', type: 'password', maxlength: 1000, autocomplete: 'off', error: f.client_secret })}
${input({ name: 'email_claim', label: 'Claim with the e-mail address', value: v.email_claim, required: true, maxlength: 100, error: f.email_claim })}
${input({ name: 'groups_claim', label: 'Claim with the groups', value: v.groups_claim, required: true, maxlength: 100, error: f.groups_claim })}
${textarea({ name: 'group_roles', label: 'Roles by group: one a line, the group = the role', value: v.group_roles, rows: 6, hint: 'Such as “consent-admins = Admin”. A person gets the roles of all their groups, on every sign-in; one whose groups give no role is refused.', error: f.group_roles })}
${checkbox({ name: 'create_users', label: 'Add a person as a user on their first sign-in', checked: v.create_users, hint: 'Otherwise only users already invited here (by the same e-mail) can sign in.' })}
${checkbox({ name: 'required', label: 'Require single sign-on: refuse passwords, but for the break-glass user', checked: v.required })}
${select({ name: 'break_glass_user_id', label: 'Break-glass user (password and second factor, for when the provider fails)', value: v.break_glass_user_id, options: [['', 'None'], ...o.candidates.map((m) => [m.id, `${m.name} (${m.email})`] as const)], error: f.break_glass_user_id })}
<button type="submit">Save</button>
</form>
${o.configured ? html`<form method="post" action="${basePath}/settings/sso/remove">${csrfField(o.csrfToken)}<button type="submit" class="secondary">Turn single sign-on off</button></form>` : ''}`
    : html`<p>${o.configured ? html`Single sign-on is set up with <span class="mono">${v.issuer}</span>.` : 'Single sign-on is not set up.'}</p>`
}`;
}
