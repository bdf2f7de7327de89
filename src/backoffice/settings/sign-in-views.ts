import type { Role, SignInRequirement } from '../../accounts/index.js';
import { csrfField, formErrors, select } from '../web/forms.js';
import { type Html, html } from '../web/html.js';
import { basePath } from '../web/layout.js';

export const requirementChoices = [
  ['', 'A password'],
  ['second_factor', 'A second factor: an authenticator app or a passkey'],
  ['passkey', 'A passkey'],
] as const;

/** The form's field of a role. */
export const ruleField = (roleId: string) => `rule_${roleId}`;

export function signInRulesPage(o: {
  csrfToken: string;
  roles: readonly Role[];
  rules: ReadonlyMap<string, SignInRequirement>;
  twoFactorRequired: boolean;
  mayEdit: boolean;
  errors?: string[];
}): Html {
  const fields = html`<fieldset${o.mayEdit ? '' : html` disabled`}>
${o.roles.map((role) =>
  select({
    name: ruleField(role.id),
    label: `Signing in as ${role.name} requires`,
    value: o.rules.get(role.id) ?? '',
    options: requirementChoices,
  }),
)}
</fieldset>`;
  return html`<nav aria-label="breadcrumb"><ul><li><a href="${basePath}/settings">Settings</a></li><li>Sign-in requirements</li></ul></nav>
<h1>Sign-in requirements</h1>
<p>What each role's holders must sign in with. A person with several roles meets the strictest. Someone without what their role requires is asked to set it up at their next page, before anything else; once they have a passkey, a role that requires one no longer lets them in by password. Sessions through your single sign-on follow your identity provider's own rules.</p>
${o.twoFactorRequired ? html`<p class="notice" role="status">Your settings require two-factor sign-in of every user: every role requires at least a second factor.</p>` : ''}
${formErrors(o.errors ?? [])}
${
  o.mayEdit
    ? html`<form method="post" action="${basePath}/settings/sign-in">
${csrfField(o.csrfToken)}
${fields}
<button type="submit">Save</button>
</form>`
    : fields
}`;
}
