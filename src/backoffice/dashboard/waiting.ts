import type { WaitingVersion } from '../../templates/index.js';
import { time } from '../web/format.js';
import { type Html, html, segment } from '../web/html.js';
import { basePath } from '../web/layout.js';

const waitsForWords: Record<WaitingVersion['waitsFor'], string> = {
  review: 'your review',
  approval: 'your approval',
  changes: 'changes: it was sent back',
};

const lastStepWords: Record<WaitingVersion['last']['step'], string> = {
  submitted: 'submitted',
  sent_back: 'sent back',
  passed: 'review passed',
  approved: 'approved',
  rejected: 'rejected',
  schedule_cancelled: 'go-live cancelled',
};

/** The versions at a step the user may take, each linked to the page where they take it. */
export function waitingForYou(versions: WaitingVersion[], zone: string): Html {
  return html`<section aria-labelledby="waiting">
<h2 id="waiting">Waiting for you</h2>
${
  versions.length === 0
    ? html`<p>Nothing is waiting for you.</p>`
    : html`<div class="table-scroll" tabindex="0" role="region" aria-label="Versions waiting for you"><table>
<thead><tr><th scope="col">Template</th><th scope="col">Tag</th><th scope="col">Waiting for</th><th scope="col">Last step</th></tr></thead>
<tbody>
${versions.map((v) => {
  const path = `${basePath}/templates/${segment(v.template_code)}/versions/${segment(v.id)}`;
  const href = v.waitsFor === 'changes' ? path : `${path}/review`;
  return html`<tr>
<td>${v.template_name} <span class="mono">${v.template_code}</span></td>
<td><a href="${href}">${v.tag}</a></td>
<td>${waitsForWords[v.waitsFor]}</td>
<td>${lastStepWords[v.last.step]} by ${v.last.actor_name || v.last.actor}, ${time(v.last.created_at, zone)}</td>
</tr>`;
})}
</tbody></table></div>`
}
</section>`;
}

/** The releases approved to go live later, soonest first, each linked to its review page. */
export function scheduledList(
  versions: Array<{
    id: string;
    tag: string;
    version: number | null;
    published_at: string | null;
    template_code: string;
    template_name: string;
  }>,
  zone: string,
): Html {
  return html`<section aria-labelledby="scheduled">
<h2 id="scheduled">Scheduled releases</h2>
<div class="table-scroll" tabindex="0" role="region" aria-label="Releases that go live later"><table>
<thead><tr><th scope="col">Template</th><th scope="col">Version</th><th scope="col">Goes live</th></tr></thead>
<tbody>
${versions.map(
  (v) => html`<tr>
<td>${v.template_name} <span class="mono">${v.template_code}</span></td>
<td><a href="${basePath}/templates/${segment(v.template_code)}/versions/${segment(v.id)}/review">${v.version} (tag ${v.tag})</a></td>
<td>${time(v.published_at, zone)}</td>
</tr>`,
)}
</tbody></table></div>
</section>`;
}
