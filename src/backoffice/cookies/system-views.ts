import type { CookieSystem, RefusedOrigin } from '../../cookies/index.js';
import { badge, time } from '../web/format.js';
import { csrfField, type FieldErrors, formErrors, input, textarea } from '../web/forms.js';
import { type Html, html } from '../web/html.js';
import { basePath } from '../web/layout.js';
import { analyticsPath, configurationPath, scansPath, systemPath } from './paths.js';
import { cookieTabs } from './section.js';

/** A system as the pages show it, with the name of its published configuration. */
export interface SystemModel extends CookieSystem {
  published: { id: string; version: number; name: string } | undefined;
}

export function systemList(o: { systems: SystemModel[]; mayCreate: boolean }): Html {
  return html`<hgroup><h1>Cookie systems</h1><p>Your websites and web apps: each has its banner and its script tag.</p></hgroup>
${cookieTabs('systems')}
${o.mayCreate ? html`<p><a href="${basePath}/cookies/systems/new" role="button">New system</a></p>` : ''}
${
  o.systems.length === 0
    ? html`<p>No system yet. Add your website, with the origins its pages are served from; then make its banner.</p>`
    : html`<div class="table-scroll" tabindex="0" role="region" aria-label="Cookie systems"><table>
<thead><tr><th scope="col">Name</th><th scope="col">Scope</th><th scope="col">Origins</th><th scope="col">Published configuration</th></tr></thead>
<tbody>
${o.systems.map(
  (s) => html`<tr>
<td><a href="${basePath}${systemPath(s.scope)}">${s.name}</a></td>
<td class="mono">${s.scope}</td>
<td class="wrap"><ul class="details-list">${s.origins.map((origin) => html`<li class="mono">${origin}</li>`)}</ul></td>
<td>${s.published ? html`<a href="${basePath}${configurationPath(s.published.id)}">${s.published.name}</a> (version ${s.published.version})` : badge('draft', 'none')}</td>
</tr>`,
)}
</tbody></table></div>`
}`;
}

export interface SystemFormModel {
  csrfToken: string;
  values: { name: string; origins: string };
  errors: string[];
  fieldErrors: FieldErrors;
}

function systemFields(o: SystemFormModel): Html {
  return html`${csrfField(o.csrfToken)}
${input({ name: 'name', label: 'Name', value: o.values.name, required: true, maxlength: 200, hint: 'Unique among your systems, such as "Public website".', error: o.fieldErrors.name })}
${textarea({ name: 'origins', label: 'Origins, one a line', value: o.values.origins, rows: 4, required: true, hint: 'Where its pages are served from: scheme, host and port, such as https://www.bank.example. Choices are recorded from these origins only.', error: o.fieldErrors.origins })}`;
}

export function newSystemForm(o: SystemFormModel): Html {
  return html`<nav aria-label="breadcrumb"><ul><li><a href="${basePath}/cookies/systems">Cookie systems</a></li><li>New</li></ul></nav>
<h1>New cookie system</h1>
${formErrors(o.errors)}
<form method="post" action="${basePath}/cookies/systems" novalidate>
${systemFields(o)}
<button type="submit">Add system</button>
</form>`;
}

export function systemPage(o: {
  system: SystemModel;
  /** Origins not listed whose pages tried to record a choice, and how many such are kept. */
  refused: { origins: RefusedOrigin[]; kept: number };
  scriptTag: string | undefined;
  zone: string;
  /** The form to change it, when the user may. */
  form: SystemFormModel | undefined;
  mayCreateConfiguration: boolean;
}): Html {
  const { system } = o;
  return html`<nav aria-label="breadcrumb"><ul><li><a href="${basePath}/cookies/systems">Cookie systems</a></li><li>${system.name}</li></ul></nav>
<hgroup><h1>${system.name}</h1><p class="mono">${system.scope}</p></hgroup>
<dl class="facts">
<dt>Scope</dt><dd class="mono">${system.scope}</dd>
<dt>Origins</dt><dd><ul class="details-list">${system.origins.map((origin) => html`<li class="mono">${origin}</li>`)}</ul></dd>
<dt>Published configuration</dt><dd>${system.published ? html`<a href="${basePath}${configurationPath(system.published.id)}">${system.published.name}</a> (version ${system.published.version})` : 'none: the banner script answers 404 until one is published'}</dd>
<dt>Added</dt><dd>${time(system.created_at, o.zone)}</dd>
</dl>
<p><a href="${basePath}${analyticsPath(system.scope)}">Analytics</a>: choices a day and opt-in rates per category, region and A/B variant, with a chart and as CSV.</p>
<p><a href="${basePath}${scansPath(system.scope)}">Scans</a>: the trackers its pages run before a choice, after Accept all and after Reject all.</p>
${o.scriptTag ? scriptTagField(o.scriptTag) : ''}
${refusedOrigins(o.refused, o.zone, o.form !== undefined)}
${o.mayCreateConfiguration ? html`<p><a href="${basePath}/cookies/configurations/new?system=${encodeURIComponent(system.scope)}" role="button">New configuration for this system</a></p>` : ''}
${
  o.form
    ? html`<h2>Name and origins</h2>
${formErrors(o.form.errors)}
<form method="post" action="${basePath}${systemPath(system.scope)}" novalidate>
${systemFields(o.form)}
<button type="submit">Save</button>
</form>`
    : ''
}`;
}

/**
 * The origins refused on the system: a page on an origin the system does not list cannot record
 * a choice, and its owner learns of it only here.
 */
function refusedOrigins(
  refused: { origins: RefusedOrigin[]; kept: number },
  zone: string,
  mayEdit: boolean,
): Html {
  if (refused.origins.length === 0) return html``;
  return html`<section aria-labelledby="refused-origins-heading">
<h2 id="refused-origins-heading">Refused origins</h2>
<p>Pages on these origins tried to record a visitor's choice and were refused, so nothing was recorded for them. If one is a site of yours, ${mayEdit ? html`add it to the origins below` : 'ask someone who may edit this system to add it to its origins'}; if not, someone copied the banner's tag.</p>
<div class="table-scroll" tabindex="0" role="region" aria-label="Refused origins"><table>
<thead><tr><th scope="col">Origin</th><th scope="col">Refused choices</th><th scope="col">Last seen</th></tr></thead>
<tbody>
${refused.origins.map(
  (r) => html`<tr>
<td>${r.origin === null ? html`Other origins <small>(past the first ${refused.kept}, or no http(s) origin)</small>` : html`<span class="mono">${r.origin}</span>`}</td>
<td>${r.refusals}</td>
<td>${time(r.last_seen_at, zone)}</td>
</tr>`,
)}
</tbody></table></div>
</section>`;
}

/**
 * The tag to paste into the site's pages, as a read-only field (selected and copied by hand
 * without scripts) with a copy button that the back-office's script shows.
 */
export function scriptTagField(tag: string): Html {
  return html`<section aria-labelledby="script-tag-heading">
<h2 id="script-tag-heading">Script tag</h2>
<p>Paste it as the first scripts in the <code>&lt;head&gt;</code> of every page, exactly as it is: the first sets Google Consent Mode's denied defaults before any other tag, the second loads the banner without holding up the page, and its <code>data-scope</code> binds the banner and its choices to this system.</p>
<label for="script-tag">Script tag</label>
<textarea id="script-tag" class="mono" rows="6" readonly>${tag}</textarea>
<p><button type="button" data-copy="script-tag" hidden>Copy</button></p>
</section>`;
}
