import type { Role, RoleHolder } from '../../accounts/index.js';
import {
  actions,
  areas,
  isPermission,
  type Permission,
  permissionCatalogue,
} from '../../accounts/index.js';
import { badge } from '../web/format.js';
import { csrfField, type FieldErrors, formErrors, input } from '../web/forms.js';
import { type Html, html, segment } from '../web/html.js';
import { basePath } from '../web/layout.js';

/** "Ann, Bob and Cy": names as a sentence reads them. */
function namesOf(holders: readonly RoleHolder[]): string {
  const names = holders.map((h) => h.name);
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

export function rolesPage(o: {
  roles: readonly Role[];
  holders: ReadonlyMap<string, readonly RoleHolder[]>;
  mayEdit: boolean;
}): Html {
  return html`<hgroup><h1>Roles</h1><p>Administration</p></hgroup>
<p>A user's permissions are those of all their roles together. Built-in roles cannot be changed; your own roles are made from the permission matrix.</p>
${o.mayEdit ? html`<p><a href="${basePath}/roles/new" role="button">New role</a></p>` : ''}
<div class="table-scroll" tabindex="0" role="region" aria-label="Roles"><table>
<thead><tr><th scope="col">Role</th><th scope="col">What it is for</th><th scope="col">Permissions</th><th scope="col">Held by</th></tr></thead>
<tbody>
${o.roles.map((r) => {
  const holders = o.holders.get(r.id) ?? [];
  return html`<tr>
<td><a href="${basePath}/roles/${segment(r.id)}">${r.name}</a>${r.builtIn ? html` ${badge('built-in')}` : ''}</td>
<td class="wrap">${r.description}</td>
<td>${r.permissions.length}</td>
<td class="wrap">${holders.length === 0 ? html`<span class="muted">Nobody</span>` : holders.map((h) => h.name).join(', ')}</td>
</tr>`;
})}
</tbody></table></div>`;
}

/**
 * The permission matrix: a row per area, a column per action, a box where the pair exists.
 * Read-only (disabled boxes) for a built-in role or a user who may not edit roles.
 */
function matrix(chosen: ReadonlySet<string>, readOnly: boolean): Html {
  return html`<div class="table-scroll" tabindex="0" role="region" aria-label="Permissions"><table class="matrix">
<caption>Permissions</caption>
<thead><tr><th scope="col">Area</th>${actions.map((a) => html`<th scope="col">${a}</th>`)}</tr></thead>
<tbody>
${areas.map(
  ([area, label]) => html`<tr><th scope="row">${label}</th>
${actions.map((action) => {
  const code = `${area}:${action}`;
  if (!isPermission(code)) return html`<td></td>`;
  return html`<td><input type="checkbox" name="permissions" value="${code}" id="p-${code}"${chosen.has(code) ? html` checked` : ''}${readOnly ? html` disabled` : ''} aria-label="${label}: ${action}" title="${permissionCatalogue[code as Permission]}"></td>`;
})}
</tr>`,
)}
</tbody></table></div>`;
}

export function roleForm(o: {
  role: Role | undefined;
  csrfToken: string;
  values: { name: string; description: string; permissions: readonly string[] };
  errors: string[];
  fieldErrors: FieldErrors;
  readOnly: boolean;
  /** Who holds the role (none for a new one). */
  holders: readonly RoleHolder[];
}): Html {
  const title = o.role ? o.role.name : 'New role';
  const action = o.role ? `${basePath}/roles/${segment(o.role.id)}` : `${basePath}/roles`;
  if (o.readOnly) {
    return html`<nav aria-label="breadcrumb"><ul><li><a href="${basePath}/roles">Roles</a></li><li>${title}</li></ul></nav>
<h1>${title}${o.role?.builtIn ? html` ${badge('built-in')}` : ''}</h1>
<p>${o.values.description}</p>
${matrix(new Set(o.values.permissions), true)}`;
  }
  return html`<nav aria-label="breadcrumb"><ul><li><a href="${basePath}/roles">Roles</a></li><li>${title}</li></ul></nav>
<h1>${title}</h1>
${formErrors(o.errors)}
<form method="post" action="${action}" novalidate>
${csrfField(o.csrfToken)}
${input({ name: 'name', label: 'Name', value: o.values.name, required: true, maxlength: 60, error: o.fieldErrors.name })}
${input({ name: 'description', label: 'What it is for', value: o.values.description, maxlength: 200, error: o.fieldErrors.description })}
${o.fieldErrors.permissions ? html`<p class="field-error">${o.fieldErrors.permissions}</p>` : ''}
${matrix(new Set(o.values.permissions), false)}
<button type="submit">${o.role ? 'Save the role' : 'Create the role'}</button>
</form>
${o.role ? deleteForm(o.role, o.holders, o.csrfToken) : ''}`;
}

/**
 * Deleting a role: who holds it, named, and who would be left with no role at all, above a box
 * to tick; sent without it (a browser without scripts sends the form as it is), the page asks
 * again with the same names.
 */
function deleteForm(role: Role, holders: readonly RoleHolder[], csrfToken: string): Html {
  const stranded = holders.filter((h) => h.onlyThisRole);
  return html`<h2>Delete</h2>
${
  holders.length === 0
    ? html`<p>Nobody holds this role.</p>`
    : html`<p>${namesOf(holders)} ${holders.length === 1 ? 'holds' : 'hold'} this role: deleting it takes away what it grants them.${stranded.length > 0 ? html` <strong>${namesOf(stranded)} would be left with no role</strong>, and could open only their dashboard until given one.` : ''}</p>`
}
<form method="post" action="${basePath}/roles/${segment(role.id)}/delete">${csrfField(csrfToken)}
<label><input type="checkbox" name="confirm" value="true" required> Yes, delete the role ${role.name}${holders.length > 0 ? html` and take it from ${namesOf(holders)}` : ''}</label>
<button type="submit" class="secondary">Delete the role</button></form>`;
}
