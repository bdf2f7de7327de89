import type { AuditCursor, AuditListItem } from '../../audit/service.js';
import { time } from '../web/format.js';
import { type Html, html } from '../web/html.js';

export function auditPage(o: {
  items: AuditListItem[];
  next: AuditCursor | undefined;
  showTenant: boolean;
  path: string;
  first: boolean;
  zone: string;
}): Html {
  return html`<hgroup><h1>Audit log</h1><p>Every action in this back-office, newest first.</p></hgroup>
<p><a href="${o.path}.csv" download>Download the whole log as CSV</a></p>
${
  o.items.length === 0
    ? html`<p>Nothing recorded yet.</p>`
    : html`<div class="table-scroll"><table>
<thead><tr><th scope="col">Time</th>${o.showTenant ? html`<th scope="col">Tenant</th>` : ''}<th scope="col">Who</th><th scope="col">Action</th><th scope="col">On</th><th scope="col">Details</th></tr></thead>
<tbody>
${o.items.map(
  (e) => html`<tr>
<td>${time(e.createdAt, o.zone)}</td>
${o.showTenant ? html`<td>${e.tenantAlias ?? '—'}</td>` : ''}
<td>${e.actor || '—'}<br><small class="muted">${e.actorKind}, from <span class="mono">${e.ip}</span></small></td>
<td class="mono">${e.action}</td>
<td>${e.target ?? ''}</td>
<td class="wrap">${details(e.details)}</td>
</tr>`,
)}
</tbody></table></div>`
}
<nav class="pager" aria-label="Pages of the log">
${o.first ? html`<span></span>` : html`<a href="${o.path}">Newest</a>`}
${o.next ? html`<a href="${o.path}?before=${encodeURIComponent(`${o.next.createdAt}~${o.next.id}`)}">Older</a>` : ''}
</nav>`;
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
