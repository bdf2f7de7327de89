import type { AuditCursor, AuditListItem } from '../../audit-trail/index.js';
import { dayRuleNote, queryString } from '../web/filters.js';
import { time } from '../web/format.js';
import { type FieldErrors, input, select } from '../web/forms.js';
import { type Html, html } from '../web/html.js';
import type { AuditFilterValues } from './schemas.js';

function filterForm(o: {
  path: string;
  values: AuditFilterValues;
  fieldErrors: FieldErrors;
  actions: readonly string[];
  people: ReadonlyArray<{ email: string; name: string }> | undefined;
  zone: string;
}): Html {
  const who = o.people
    ? select({
        name: 'actor',
        label: 'Who',
        value: o.values.actor,
        options: [
          ['', 'Anyone'],
          ...o.people.map((p) => [p.email, `${p.name} (${p.email})`] as const),
        ],
      })
    : input({
        name: 'actor',
        label: 'Who (e-mail)',
        value: o.values.actor,
        maxlength: 254,
        error: o.fieldErrors.actor,
      });
  return html`<form method="get" action="${o.path}" class="filters" novalidate>
<fieldset class="grid">
<div>${input({ name: 'from', label: 'From (day)', type: 'date', value: o.values.from, error: o.fieldErrors.from })}</div>
<div>${input({ name: 'to', label: 'To (day, included)', type: 'date', value: o.values.to, error: o.fieldErrors.to })}</div>
<div>${who}</div>
<div>${select({ name: 'action', label: 'Action', value: o.values.action, options: [['', 'Any'], ...o.actions.map((a) => [a, a] as const)] })}</div>
<div>${input({ name: 'target', label: 'On (contains)', value: o.values.target, maxlength: 200, error: o.fieldErrors.target })}</div>
</fieldset>
${dayRuleNote(o.zone)}
<p><button type="submit">Filter</button> <a href="${o.path}">Clear</a></p>
</form>`;
}

export function auditPage(o: {
  items: AuditListItem[];
  next: AuditCursor | undefined;
  showTenant: boolean;
  path: string;
  first: boolean;
  zone: string;
  values: AuditFilterValues;
  fieldErrors: FieldErrors;
  actions: readonly string[];
  /** The tenant's team, to choose who; none for the operator's whole log (an e-mail is typed). */
  people: ReadonlyArray<{ email: string; name: string }> | undefined;
  mayDownload: boolean;
}): Html {
  const filtered = Object.values(o.values).some(Boolean);
  return html`<hgroup><h1>Audit log</h1><p>Every action in this back-office, newest first.</p></hgroup>
${filterForm(o)}
${o.mayDownload ? html`<p><a href="${o.path}.csv${queryString(o.values)}" download>${filtered ? 'Download these entries as CSV' : 'Download the whole log as CSV'}</a></p>` : ''}
${
  o.items.length === 0
    ? html`<p>Nothing recorded yet.</p>`
    : html`<div class="table-scroll" tabindex="0" role="region" aria-label="Audit entries"><table>
<thead><tr><th scope="col">Time</th>${o.showTenant ? html`<th scope="col">Tenant</th>` : ''}<th scope="col">Who</th><th scope="col">Action</th><th scope="col">On</th><th scope="col">Details</th></tr></thead>
<tbody>
${o.items.map(
  (e) => html`<tr>
<td>${time(e.createdAt, o.zone)}</td>
${o.showTenant ? html`<td>${e.tenantAlias ?? '—'}</td>` : ''}
<td>${who(e, o.people)}</td>
<td class="mono">${e.action}</td>
<td>${e.target ?? ''}</td>
<td class="wrap">${details(e.details)}</td>
</tr>`,
)}
</tbody></table></div>`
}
<nav class="pager" aria-label="Pages of the log">
${o.first ? html`<span></span>` : html`<a href="${o.path}${queryString(o.values)}">Newest</a>`}
${o.next ? html`<a href="${o.path}${queryString(o.values, { before: `${o.next.createdAt}~${o.next.id}` })}">Older</a>` : ''}
</nav>`;
}

/** How an entry's kind of actor reads beside where they acted from. */
const kindWords = {
  tenant: '',
  operator: 'operator, ',
  anonymous: 'not signed in, ',
  customer: 'in the preference centre, ',
} as const;

/**
 * Who acted: their name as recorded, or else, for an entry made before signing in (a wrong
 * password) or without a name, the name of the team's account with that e-mail; then the
 * e-mail, and where from.
 */
function who(
  e: AuditListItem,
  people: ReadonlyArray<{ email: string; name: string }> | undefined,
): Html {
  const email = e.actor.toLowerCase();
  // A customer on their own page is named by their session there, never by their customer id.
  const name =
    e.actorKind === 'customer'
      ? 'A customer'
      : e.actorName || people?.find((p) => p.email.toLowerCase() === email)?.name;
  return html`${name ? html`${name}<br><small>${e.actor}</small>` : e.actor || '—'}<br><small class="muted">${kindWords[e.actorKind]}from <span class="mono">${e.ip}</span></small>`;
}

/** The JSON particulars as "name: value" lines. */
function details(json: string | null): Html {
  if (!json) return html``;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return html`<small class="mono">${json}</small>`;
  }
  if (parsed === null || typeof parsed !== 'object')
    return html`<small class="mono">${json}</small>`;
  return html`<ul class="details-list">${Object.entries(parsed).map(
    ([name, value]) =>
      html`<li><small>${name.replaceAll('_', ' ')}: <span class="mono">${value === null ? '—' : String(value)}</span></small></li>`,
  )}</ul>`;
}
