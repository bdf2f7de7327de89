import type { WaitingConfiguration } from '../../cookies/index.js';
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

const configurationStepWords: Record<WaitingConfiguration['last']['step'], string> = {
  created: 'created',
  changed: 'changed',
  submitted: 'submitted',
  passed: 'review passed',
  approved: 'approved',
  sent_back: 'sent back',
  rejected: 'rejected',
  published: 'published',
  unpublished: 'unpublished',
};

/**
 * The versions and banner configurations at a step the user may take, each linked to the page
 * where they take it; "Nothing is waiting for you" only when neither list has one.
 */
export function waitingForYou(
  versions: WaitingVersion[],
  banners: WaitingConfiguration[],
  zone: string,
): Html {
  return html`<section aria-labelledby="waiting">
<h2 id="waiting">Waiting for you</h2>
${versions.length === 0 && banners.length === 0 ? html`<p>Nothing is waiting for you.</p>` : ''}
${versions.length === 0 ? '' : versionTable(versions, zone)}
${banners.length === 0 ? '' : bannerTable(banners, zone)}
</section>`;
}

function versionTable(versions: WaitingVersion[], zone: string): Html {
  return html`<div class="table-scroll" tabindex="0" role="region" aria-label="Versions waiting for you"><table>
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
</tbody></table></div>`;
}

function bannerTable(banners: WaitingConfiguration[], zone: string): Html {
  return html`<div class="table-scroll" tabindex="0" role="region" aria-label="Cookie banners waiting for you"><table>
<thead><tr><th scope="col">Cookie banner</th><th scope="col">Website</th><th scope="col">Waiting for</th><th scope="col">Last step</th></tr></thead>
<tbody>
${banners.map(
  (b) => html`<tr>
<td><a href="${basePath}/cookies/configurations/${segment(b.id)}">${b.name} (version ${b.version})</a></td>
<td>${b.systemName}</td>
<td>${waitsForWords[b.waitsFor]}</td>
<td>${configurationStepWords[b.last.step]}, ${time(b.last.created_at, zone)}</td>
</tr>`,
)}
</tbody></table></div>`;
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
