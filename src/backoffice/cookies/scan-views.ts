import type { ScanResult, ScanSchedule, ScanView } from '../../cookie-scanner/index.js';
import { badge, count, time } from '../web/format.js';
import { csrfField, type FieldErrors, formErrors, input, select } from '../web/forms.js';
import { type Html, html } from '../web/html.js';
import { basePath } from '../web/layout.js';
import { scanPath, scansPath, systemPath } from './paths.js';

const triggers: Record<string, string> = {
  'command-line': 'Command line',
  'back-office': 'Back-office',
  schedule: 'Schedule',
};

const phases: Record<string, string> = {
  'before-choice': 'Before any choice',
  'accept-all': 'After Accept all',
  'reject-all': 'After Reject all',
};

const outcomes: Record<string, string> = {
  scanned: 'Scanned',
  timeout: 'Timed out',
  'left-origin': 'Left the origin',
  download: 'A download',
  'not-html': 'Not a page',
  failed: 'Failed',
  'not-reached': 'Not reached',
};

export const scheduleChoices = [
  ['', 'Off'],
  ['1', 'Every day'],
  ['7', 'Every week'],
  ['14', 'Every two weeks'],
  ['30', 'Every 30 days'],
  ['90', 'Every 90 days'],
] as const;

function statusBadge(status: string): Html {
  const kind = status === 'done' ? 'approved' : status === 'running' ? 'pending' : 'rejected';
  return badge(kind, status);
}

export interface ScansModel {
  system: { scope: string; name: string };
  scans: ScanView[];
  schedule: ScanSchedule | undefined;
  zone: string;
  /** The forms, when the user may scan. */
  forms:
    | {
        csrfToken: string;
        errors: string[];
        fieldErrors: FieldErrors;
        values: { pages: string; every_days: string; schedule_pages: string };
      }
    | undefined;
}

/** A system's scans: "Scan now", the schedule, and the history. */
export function scansPage(o: ScansModel): Html {
  const { system } = o;
  return html`<nav aria-label="breadcrumb"><ul><li><a href="${basePath}/cookies/systems">Cookie systems</a></li><li><a href="${basePath}${systemPath(system.scope)}">${system.name}</a></li><li>Scans</li></ul></nav>
<hgroup><h1>Scans of ${system.name}</h1><p>Each scan opens the site in a browser before any choice, after Accept all and after Reject all, and names every tracker that ran without consent.</p></hgroup>
${o.forms ? scanForms(o) : ''}
${scheduleLine(o.schedule, o.zone)}
<h2>History</h2>
${
  o.scans.length === 0
    ? html`<p>No scan yet.</p>`
    : html`<div class="table-scroll" tabindex="0" role="region" aria-label="Scans"><table>
<thead><tr><th scope="col">Started</th><th scope="col">By</th><th scope="col">Status</th><th scope="col">Violations</th><th scope="col">Changes</th></tr></thead>
<tbody>
${o.scans.map(
  (s) => html`<tr>
<td><a href="${basePath}${scanPath(system.scope, s.scan_id)}">${time(s.started_at, o.zone)}</a></td>
<td>${triggers[s.trigger] ?? s.trigger}</td>
<td>${statusBadge(s.status)}</td>
<td>${s.status === 'done' ? String(s.violations_count) : ''}</td>
<td>${s.status === 'done' ? String(s.changes_count) : ''}</td>
</tr>`,
)}
</tbody></table></div>`
}`;
}

function scheduleLine(schedule: ScanSchedule | undefined, zone: string): Html {
  if (!schedule) return html`<p>Not scanned on a schedule.</p>`;
  const every =
    scheduleChoices.find(([value]) => value === String(schedule.every_days))?.[1] ??
    `Every ${schedule.every_days} days`;
  return html`<p>${every}, ${count(schedule.pages, 'page', 'pages')}: the next scan is due ${time(schedule.next_at, zone)}.</p>`;
}

function scanForms(o: ScansModel): Html {
  const forms = o.forms;
  if (!forms) return html``;
  const path = `${basePath}${scansPath(o.system.scope)}`;
  return html`${formErrors(forms.errors)}
<form method="post" action="${path}" novalidate>
${csrfField(forms.csrfToken)}
${input({ name: 'pages', label: 'Pages', value: forms.values.pages, type: 'number', hint: 'The most pages to open, 1 to 100, found by following links from the origins.', error: forms.fieldErrors.pages })}
<button type="submit">Scan now</button>
</form>
<form method="post" action="${path}/schedule" novalidate>
${csrfField(forms.csrfToken)}
${select({ name: 'every_days', label: 'Scan on a schedule', value: forms.values.every_days, options: scheduleChoices, error: forms.fieldErrors.every_days })}
${input({ name: 'schedule_pages', label: 'Pages', value: forms.values.schedule_pages, type: 'number', error: forms.fieldErrors.schedule_pages })}
<button type="submit" class="secondary">Save the schedule</button>
</form>`;
}

/** One scan: its violations first, then what it found, the pages, and what changed. */
export function scanPage(o: {
  system: { scope: string; name: string };
  scan: ScanView & Partial<ScanResult>;
  zone: string;
}): Html {
  const { system, scan } = o;
  const nav = html`<nav aria-label="breadcrumb"><ul><li><a href="${basePath}/cookies/systems">Cookie systems</a></li><li><a href="${basePath}${systemPath(system.scope)}">${system.name}</a></li><li><a href="${basePath}${scansPath(system.scope)}">Scans</a></li><li>${time(scan.started_at, o.zone)}</li></ul></nav>`;
  const facts = html`<dl class="facts">
<dt>Status</dt><dd>${statusBadge(scan.status)}${scan.error ? html` ${scan.error}` : ''}</dd>
<dt>Started</dt><dd>${time(scan.started_at, o.zone)} (${triggers[scan.trigger] ?? scan.trigger})</dd>
<dt>Finished</dt><dd>${scan.finished_at ? time(scan.finished_at, o.zone) : 'not yet'}</dd>
<dt>Started from</dt><dd><ul class="details-list">${scan.urls.map((u) => html`<li class="mono">${u}</li>`)}</ul></dd>
</dl>`;
  if (scan.status === 'running') {
    return html`${nav}<h1>Scan of ${system.name}</h1>${facts}
<p>The scan is running: it takes up to a few minutes. <a href="${basePath}${scanPath(system.scope, scan.scan_id)}">Refresh</a> to see it.</p>`;
  }
  if (!scan.cookies) return html`${nav}<h1>Scan of ${system.name}</h1>${facts}`;
  return html`${nav}<h1>Scan of ${system.name}</h1>${facts}
${scan.choices && (!scan.choices.accept_all || !scan.choices.reject_all) ? html`<p role="note">The banner was not found on the first page, so the scan could not accept or reject: only what runs before a choice was checked.</p>` : ''}
${scan.truncated ? html`<p role="note">The scan reached its time limit before it had scanned every page.</p>` : ''}
${violations(scan)}
${cookies(scan)}
${hosts(scan)}
${changes(scan)}
${pages(scan)}`;
}

function where(page: string, phase: string): Html {
  return html`<span class="mono">${page}</span><br><small>${phases[phase] ?? phase}</small>`;
}

function violations(scan: Partial<ScanResult>): Html {
  const list = scan.violations ?? [];
  return html`<h2>Violations</h2>
${
  list.length === 0
    ? html`<p>None: nothing but necessary cookies and hosts before a choice or after Reject all.</p>`
    : html`<div class="table-scroll" tabindex="0" role="region" aria-label="Violations"><table>
<thead><tr><th scope="col">What</th><th scope="col">Category</th><th scope="col">Where</th><th scope="col">Caused by</th></tr></thead>
<tbody>
${list.map(
  (v) => html`<tr>
<td>${v.kind === 'cookie' ? html`Cookie <span class="mono">${v.name}</span>` : html`Request to <span class="mono">${v.host}</span>`}</td>
<td>${v.category}</td>
<td>${where(v.page, v.phase)}</td>
<td class="mono wrap">${v.cause ?? 'unknown'}</td>
</tr>`,
)}
</tbody></table></div>`
}`;
}

function cookies(scan: Partial<ScanResult>): Html {
  const list = scan.cookies ?? [];
  return html`<h2>Cookies</h2>
${
  list.length === 0
    ? html`<p>No cookie.</p>`
    : html`<div class="table-scroll" tabindex="0" role="region" aria-label="Cookies"><table>
<thead><tr><th scope="col">Name</th><th scope="col">Domain</th><th scope="col">Category</th><th scope="col">Provider</th><th scope="col">Expires</th><th scope="col">Where</th></tr></thead>
<tbody>
${list.map(
  (c) => html`<tr>
<td class="mono">${c.name}</td>
<td class="mono">${c.domain}</td>
<td>${c.category}</td>
<td>${c.provider ?? ''}</td>
<td>${c.expires ? c.expires.slice(0, 10) : 'session'}</td>
<td>${where(c.page, c.phase)}</td>
</tr>`,
)}
</tbody></table></div>`
}`;
}

function hosts(scan: Partial<ScanResult>): Html {
  const list = scan.requests ?? [];
  return html`<h2>Third-party hosts</h2>
${
  list.length === 0
    ? html`<p>No request to another site.</p>`
    : html`<div class="table-scroll" tabindex="0" role="region" aria-label="Third-party hosts"><table>
<thead><tr><th scope="col">Host</th><th scope="col">Category</th><th scope="col">Provider</th><th scope="col">Where</th></tr></thead>
<tbody>
${list.map(
  (r) => html`<tr>
<td class="mono">${r.host}</td>
<td>${r.category}</td>
<td>${r.provider ?? ''}</td>
<td>${where(r.page, r.phase)}</td>
</tr>`,
)}
</tbody></table></div>`
}`;
}

function changes(scan: Partial<ScanResult>): Html {
  const c = scan.changes;
  if (!c || c.since === null)
    return html`<h2>Changes</h2><p>The system's first scan: nothing to compare with.</p>`;
  const items = [
    ...c.new_cookies.map(
      (k) => html`<li>New cookie <span class="mono">${k.name}</span> (${k.domain})</li>`,
    ),
    ...c.gone_cookies.map(
      (k) => html`<li>Gone: cookie <span class="mono">${k.name}</span> (${k.domain})</li>`,
    ),
    ...c.new_hosts.map((h) => html`<li>New host <span class="mono">${h}</span></li>`),
    ...c.gone_hosts.map((h) => html`<li>Gone: host <span class="mono">${h}</span></li>`),
  ];
  return html`<h2>Changes</h2>
${items.length === 0 ? html`<p>The same cookies and hosts as the scan before.</p>` : html`<ul>${items}</ul>`}`;
}

function pages(scan: Partial<ScanResult>): Html {
  const list = scan.page_reports ?? [];
  return html`<h2>Pages</h2>
<div class="table-scroll" tabindex="0" role="region" aria-label="Pages"><table>
<thead><tr><th scope="col">Page</th><th scope="col">Phase</th><th scope="col">Outcome</th></tr></thead>
<tbody>
${list.map(
  (p) => html`<tr>
<td class="mono wrap">${p.url}</td>
<td>${phases[p.phase] ?? p.phase}</td>
<td>${outcomes[p.outcome] ?? p.outcome}${p.detail ? html`<br><small>${p.detail}</small>` : ''}</td>
</tr>`,
)}
</tbody></table></div>`;
}
