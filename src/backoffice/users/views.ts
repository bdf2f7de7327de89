import type { Role, TeamMember } from '../../accounts/index.js';
import { badge, time } from '../web/format.js';
import { csrfField, type FieldErrors, formErrors, input } from '../web/forms.js';
import { type Html, html, segment } from '../web/html.js';
import { basePath } from '../web/layout.js';

/** The member's roles by name; a member with none is said to have none (their dashboard only). */
function roleNames(member: TeamMember, roles: readonly Role[]): Html {
  const byId = new Map(roles.map((r) => [r.id, r.name]));
  if (member.roles.length === 0) {
    return html`${badge('no-role', 'No role')} <small class="muted">dashboard only</small>`;
  }
  return html`${member.roles.map((id) => byId.get(id) ?? 'a deleted role').join(', ')}`;
}

export function teamPage(o: {
  members: TeamMember[];
  roles: readonly Role[];
  mayInvite: boolean;
  zone: string;
}): Html {
  return html`<hgroup><h1>Users</h1><p>Administration</p></hgroup>
<p>Everyone who signs in to this tenant's back-office. What each may do comes from their roles; API keys belong to the tenant, so a user leaving revokes none.</p>
${o.mayInvite ? html`<p><a href="${basePath}/users/new" role="button">Invite a user</a></p>` : ''}
<p>Your identity provider can add, deactivate and remove users, and give their roles, itself: <a href="${basePath}/settings/scim">SCIM provisioning</a>.</p>
<div class="table-scroll" tabindex="0" role="region" aria-label="Users"><table>
<thead><tr><th scope="col">Name</th><th scope="col">E-mail</th><th scope="col">Roles</th><th scope="col">Status</th><th scope="col">Last sign-in</th></tr></thead>
<tbody>
${o.members.map(
  (m) => html`<tr>
<td class="wrap"><a href="${basePath}/users/${segment(m.id)}">${m.name}</a></td>
<td class="wrap">${m.email}</td>
<td class="wrap">${roleNames(m, o.roles)}</td>
<td>${badge(m.status)}</td>
<td>${time(m.lastSignInAt, o.zone)}</td>
</tr>`,
)}
</tbody></table></div>`;
}

function roleChoices(roles: readonly Role[], chosen: readonly string[], error?: string): Html {
  return html`<fieldset${error ? html` aria-invalid="true" aria-describedby="roles-error"` : ''}>
<legend>Roles</legend>
${roles.map(
  (r) =>
    html`<label><input type="checkbox" name="roles" value="${r.id}"${chosen.includes(r.id) ? html` checked` : ''}> ${r.name} <small class="muted">${r.description}</small></label>`,
)}
${error ? html`<small id="roles-error" class="field-error">${error}</small>` : ''}
</fieldset>`;
}

export function inviteForm(o: {
  csrfToken: string;
  roles: readonly Role[];
  values: { name: string; email: string; roles: readonly string[] };
  errors: string[];
  fieldErrors: FieldErrors;
  mailed: boolean;
}): Html {
  return html`<nav aria-label="breadcrumb"><ul><li><a href="${basePath}/users">Users</a></li><li>Invite</li></ul></nav>
<h1>Invite a user</h1>
<p>${
    o.mailed
      ? 'They get an e-mail with a link to set their own password.'
      : 'You get a link to pass on to them (no e-mail is sent: SMTP is not configured); with it they set their own password.'
  } The link works once, for 72 hours.</p>
${formErrors(o.errors)}
<form method="post" action="${basePath}/users" novalidate>
${csrfField(o.csrfToken)}
${input({ name: 'name', label: 'Name', value: o.values.name, required: true, maxlength: 100, autocomplete: 'off', error: o.fieldErrors.name })}
${input({ name: 'email', label: 'E-mail', type: 'email', value: o.values.email, required: true, maxlength: 254, autocomplete: 'off', error: o.fieldErrors.email })}
${roleChoices(o.roles, o.values.roles, o.fieldErrors.roles)}
<button type="submit">Invite</button>
</form>`;
}

/** After an invitation or a new link: where it went, or the link itself, shown this once. */
export function linkIssued(o: {
  member: { id: string; name: string; email: string };
  purpose: 'invitation' | 'password_reset';
  link: string | undefined;
  /** Where to go back to (the person's page by default). */
  back?: string;
}): Html {
  const what = o.purpose === 'invitation' ? 'invitation' : 'password reset link';
  const lifetime = o.purpose === 'invitation' ? '72 hours' : 'one hour';
  return html`<h1>${o.purpose === 'invitation' ? 'Invitation ready' : 'Password link ready'}</h1>
${
  o.link
    ? html`<p><strong>Copy the link now: it is shown only this once.</strong> Give it to ${o.member.name} (${o.member.email}) by a channel you trust. It works once, for ${lifetime}.</p>
<p><label for="link-once">Link for ${o.member.email}</label></p>
<output id="link-once" class="key-once">${o.link}</output>
<p><button type="button" data-copy="link-once" hidden>Copy</button></p>`
    : html`<p role="status">The ${what} was e-mailed to ${o.member.email}. It works once, for ${lifetime}.</p>`
}
<p><a href="${basePath}${o.back ?? `/users/${segment(o.member.id)}`}">Back</a></p>`;
}

export function userPage(o: {
  member: TeamMember;
  roles: readonly Role[];
  csrfToken: string;
  may: { edit: boolean; remove: boolean };
  isSelf: boolean;
  zone: string;
  values?: { name: string; roles: readonly string[] };
  errors?: string[];
  fieldErrors?: FieldErrors;
  /** Their open sessions (accounts/session-views.ts), and how many. */
  sessions: Html;
  openSessions: number;
}): Html {
  const { member: m } = o;
  const values = o.values ?? { name: m.name, roles: m.roles };
  const fieldErrors = o.fieldErrors ?? {};
  const action = (path: string, label: string, secondary = true) =>
    html`<form method="post" action="${basePath}/users/${segment(m.id)}/${path}">${csrfField(o.csrfToken)}<button type="submit"${secondary ? html` class="secondary"` : ''}>${label}</button></form>`;
  return html`<nav aria-label="breadcrumb"><ul><li><a href="${basePath}/users">Users</a></li><li>${m.name}</li></ul></nav>
<h1>${m.name}</h1>
<dl class="facts">
<dt>E-mail</dt><dd>${m.email}</dd>
<dt>Status</dt><dd>${badge(m.status)}</dd>
<dt>Roles</dt><dd>${roleNames(m, o.roles)}</dd>
<dt>Invited</dt><dd>${time(m.createdAt, o.zone)}</dd>
<dt>Last sign-in</dt><dd>${time(m.lastSignInAt, o.zone)}</dd>
<dt>Two-factor sign-in</dt><dd>${m.twoFactor ? 'on' : 'off'}</dd>
<dt>Passkeys</dt><dd>${m.passkeys === 0 ? 'none' : String(m.passkeys)}</dd>
</dl>
${
  o.may.edit
    ? html`<h2>Name and roles</h2>
${formErrors(o.errors ?? [])}
<form method="post" action="${basePath}/users/${segment(m.id)}" novalidate>
${csrfField(o.csrfToken)}
${input({ name: 'name', label: 'Name', value: values.name, required: true, maxlength: 100, error: fieldErrors.name })}
${roleChoices(o.roles, values.roles, fieldErrors.roles)}
<button type="submit">Save</button>
</form>
<h2>Access</h2>
<div class="actions">
${m.status === 'disabled' ? action('enable', 'Enable') : ''}
${m.status !== 'disabled' ? action('link', m.status === 'invited' ? 'Renew the invitation' : 'Reset the password') : ''}
${m.status === 'active' && !o.isSelf ? action('disable', 'Disable (signs them out at once)') : ''}
${(m.twoFactor || m.passkeys > 0) && !o.isSelf ? action('two-factor-reset', m.passkeys > 0 ? 'Reset their second factor and passkeys' : 'Reset their second factor') : ''}
</div>`
    : ''
}
<h2>Sessions</h2>
${o.sessions}
${o.may.edit && !o.isSelf && o.openSessions > 0 ? action('sign-out', 'Sign out everywhere') : ''}
${
  o.may.remove && !o.isSelf
    ? html`<h2>Remove</h2><p>Removing ${m.name} deletes their account and ends their sessions; the audit log keeps their name on everything they did.</p>
<form method="post" action="${basePath}/users/${segment(m.id)}/remove">${csrfField(o.csrfToken)}
<label><input type="checkbox" name="confirm" value="true" required> Yes, remove ${m.name}</label>
<button type="submit" class="secondary">Remove this user</button></form>`
    : ''
}`;
}
