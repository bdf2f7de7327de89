import type { TeamMember } from '../../accounts/index.js';
import type { RequestDetail, RequestView } from '../../requests/index.js';
import { refusalGrounds, requestKinds } from '../../requests/index.js';
import { badge, time } from '../web/format.js';
import { csrfField, formErrors, input, select, textarea } from '../web/forms.js';
import { type Html, html, segment } from '../web/html.js';
import { basePath } from '../web/layout.js';

const requestPath = (id: string) => `${basePath}/requests/${segment(id)}`;

const statusWords: Record<string, string> = {
  received: 'Received',
  identity_checked: 'Identity checked',
  in_progress: 'In progress',
  extended: 'Extended',
  done: 'Done',
  refused: 'Refused',
};

const kindWord = (kind: string) => kind.charAt(0).toUpperCase() + kind.slice(1);

/** Days left as people read them: "12 days left", "due today", "3 days overdue". */
export function daysLeftText(r: Pick<RequestView, 'days_left'>): string {
  const left = r.days_left;
  if (left === null) return '—';
  if (left === 0) return 'Due today';
  if (left < 0) return `${-left} ${-left === 1 ? 'day' : 'days'} overdue`;
  return `${left} ${left === 1 ? 'day' : 'days'} left`;
}

const clock = (r: RequestView) =>
  r.overdue ? html`<strong class="overdue">${daysLeftText(r)}</strong>` : daysLeftText(r);

interface QueueModel {
  requests: readonly RequestView[];
  open: boolean;
  zone: string;
  mayOpen: boolean;
  csrfToken: string;
  names: ReadonlyMap<string, string>;
  errors?: readonly string[];
  values?: { customer_id: string; kind: string; details: string };
}

/** The queue: open requests by days left (overdue first, marked), or the closed ones. */
export function requestQueue(o: QueueModel): Html {
  const values = o.values ?? { customer_id: '', kind: 'access', details: '' };
  return html`<hgroup><h1>Data-subject requests</h1><p>Customers' requests to see, take, object to, erase, restrict or correct their data, or withdraw a consent. Each is due 30 days after the day it came in, in ${o.zone}.</p></hgroup>
<nav aria-label="Requests"><ul>
<li><a href="${basePath}/requests"${o.open ? html` aria-current="page"` : ''}>Open</a></li>
<li><a href="${basePath}/requests?closed=1"${o.open ? '' : html` aria-current="page"`}>Closed</a></li>
</ul></nav>
${
  o.requests.length === 0
    ? html`<p>${o.open ? 'No open request.' : 'No closed request yet.'}</p>`
    : html`<div class="table-scroll" tabindex="0" role="region" aria-label="${o.open ? 'Open requests' : 'Closed requests'}"><table>
<thead><tr><th scope="col">Customer</th><th scope="col">Kind</th><th scope="col">Status</th><th scope="col">Received</th><th scope="col">Due</th><th scope="col">${o.open ? 'Days left' : 'Closed'}</th><th scope="col">Assignee</th></tr></thead>
<tbody>
${o.requests.map(
  (r) => html`<tr${r.overdue ? html` class="overdue"` : ''}>
<td class="wrap"><a href="${requestPath(r.request_id)}">${r.customer_id ?? '(erased)'}</a></td>
<td>${kindWord(r.kind)}</td>
<td>${badge(r.status, statusWords[r.status] ?? r.status)}</td>
<td>${time(r.received_at, o.zone)}</td>
<td>${r.due_on}</td>
<td>${o.open ? clock(r) : time(r.closed_at, o.zone)}</td>
<td>${r.assignee_id ? (o.names.get(r.assignee_id) ?? '') : html`<span class="muted">—</span>`}</td>
</tr>`,
)}
</tbody></table></div>`
}
${o.mayOpen ? openForm(o.csrfToken, values, o.errors ?? []) : ''}`;
}

function openForm(
  csrfToken: string,
  values: { customer_id: string; kind: string; details: string },
  errors: readonly string[],
): Html {
  return html`<section aria-labelledby="open-request"><h2 id="open-request">Open a request for a customer</h2>
<p>For a request that came by letter, e-mail or at a branch: it is received now, and its clock starts today.</p>
${formErrors(errors)}
<form method="post" action="${basePath}/requests" novalidate>
${csrfField(csrfToken)}
${input({ name: 'customer_id', label: 'Customer id', value: values.customer_id, required: true, maxlength: 128 })}
${select({ name: 'kind', label: 'Kind', value: values.kind, options: Object.entries(requestKinds) })}
${textarea({ name: 'details', label: 'What the customer asked (optional)', value: values.details, rows: 3, maxlength: 4000 })}
<button type="submit">Open request</button>
</form></section>`;
}

interface PageModel {
  request: RequestDetail;
  zone: string;
  team: readonly TeamMember[];
  mayEdit: boolean;
  mayApprove: boolean;
  csrfToken: string;
  errors: readonly string[];
  /** The single-use link of an access or portability request just done: shown this once. */
  delivery?: { url: string; expires_at: string };
}

/** One request: where it stands, its steps with their receipts, notes, and what may be done. */
export function requestPage(o: PageModel): Html {
  const r = o.request;
  const names = new Map(o.team.map((m) => [m.id, m.name || m.email]));
  const who = (actor: { api_key_id: string | null; user_id: string | null }) =>
    actor.user_id ? (names.get(actor.user_id) ?? actor.user_id) : `API key ${actor.api_key_id}`;
  const open = r.closed_at === null && r.customer_id !== null;
  return html`<nav aria-label="breadcrumb"><ul><li><a href="${basePath}/requests">Requests</a></li><li>${kindWord(r.kind)}</li></ul></nav>
<hgroup><h1>${kindWord(r.kind)} request</h1><p>${requestKinds[r.kind as keyof typeof requestKinds] ?? ''}</p></hgroup>
${formErrors(o.errors)}
${o.delivery ? html`<article aria-labelledby="delivery"><h2 id="delivery">The customer's data</h2><p>Give the customer this link to a ZIP of their evidence pack and an export of their record (JSON and CSV). It is shown this once, works once, and expires ${time(o.delivery.expires_at, o.zone)}.</p><p><input type="text" readonly aria-label="Link for the customer" value="${o.delivery.url}"></p></article>` : ''}
<dl>
<dt>Customer</dt><dd>${r.customer_id ?? '(erased)'}</dd>
<dt>Status</dt><dd>${badge(r.status, statusWords[r.status] ?? r.status)}</dd>
<dt>Received</dt><dd>${time(r.received_at, o.zone)} (${r.via})</dd>
<dt>Due</dt><dd>${r.due_on}${r.extended ? ' (extended)' : ''}${r.closed_at === null ? html`: ${clock(r)}` : ''}</dd>
${r.closed_at ? html`<dt>Closed</dt><dd>${time(r.closed_at, o.zone)}</dd>` : ''}
${r.ground ? html`<dt>Ground</dt><dd>${r.ground}: ${refusalGrounds[r.ground as keyof typeof refusalGrounds] ?? ''}</dd>` : ''}
${r.reason ? html`<dt>Reason</dt><dd class="wrap">${r.reason}</dd>` : ''}
<dt>Assignee</dt><dd>${r.assignee_id ? (names.get(r.assignee_id) ?? r.assignee_id) : 'Nobody yet'}</dd>
${r.details ? html`<dt>What the customer asked</dt><dd class="wrap">${r.details}</dd>` : ''}
</dl>
<h2>Steps</h2>
<ol aria-label="Steps">
${r.steps.map(
  (s) =>
    html`<li>${statusWords[s.step] ?? s.step}: ${time(s.made_at, o.zone)}, by ${who(s.actor)}${s.ground ? html` (${s.ground})` : ''}${s.reason ? html`: <span class="wrap">${s.reason}</span>` : ''} <small>(receipt: <code>${s.step_id}</code>)</small></li>`,
)}
</ol>
${open && o.mayEdit ? workForms(o, names) : ''}
${open && o.mayApprove ? decisionForm(o) : ''}
<h2>Notes</h2>
${r.notes.length === 0 ? html`<p>No note yet.</p>` : html`<ul aria-label="Notes">${r.notes.map((n) => html`<li>${time(n.written_at, o.zone)}, ${names.get(n.user_id) ?? n.user_id}: <span class="wrap">${n.body ?? '(erased)'}</span></li>`)}</ul>`}
${
  o.mayEdit && r.customer_id !== null
    ? html`<form method="post" action="${requestPath(r.request_id)}/notes">
${csrfField(o.csrfToken)}
${textarea({ name: 'body', label: 'Add a note', value: '', rows: 3, maxlength: 4000, required: true })}
<button type="submit" class="secondary">Add note</button>
</form>`
    : ''
}`;
}

function workForms(o: PageModel, names: ReadonlyMap<string, string>): Html {
  const r = o.request;
  const checked = r.steps.some((s) => s.step === 'identity_checked');
  const path = requestPath(r.request_id);
  return html`<h2>Work on it</h2>
<div class="grid">
${checked ? '' : html`<form method="post" action="${path}/steps">${csrfField(o.csrfToken)}<input type="hidden" name="step" value="identity_checked"><button type="submit">Identity checked</button></form>`}
${r.status === 'in_progress' ? '' : html`<form method="post" action="${path}/steps">${csrfField(o.csrfToken)}<input type="hidden" name="step" value="in_progress"><button type="submit" class="secondary">Start work</button></form>`}
</div>
<form method="post" action="${path}/assignee">
${csrfField(o.csrfToken)}
${select({ name: 'assignee_id', label: 'Assignee', value: r.assignee_id ?? '', options: [['', 'Nobody'], ...[...names].map(([id, name]) => [id, name] as const)] })}
<button type="submit" class="secondary">Assign</button>
</form>`;
}

function decisionForm(o: PageModel): Html {
  const r = o.request;
  return html`<h2>Answer it</h2>
<form method="post" action="${requestPath(r.request_id)}/decision" novalidate>
${csrfField(o.csrfToken)}
${select({
  name: 'step',
  label: 'Step',
  value: 'done',
  options: [
    ['done', 'Done: the request was answered'],
    ...(r.extended ? [] : [['extended', 'Extend by 30 days (needs a reason)'] as const]),
    ['refused', 'Refuse (needs a ground and a reason)'],
  ],
})}
${select({ name: 'ground', label: 'Ground of a refusal', value: '', options: [['', '—'], ...Object.entries(refusalGrounds)] })}
${textarea({ name: 'reason', label: 'Reason (for an extension or a refusal; it goes in the section 39 record, so name no one)', value: '', rows: 3, maxlength: 2000 })}
<button type="submit">Record</button>
</form>`;
}
