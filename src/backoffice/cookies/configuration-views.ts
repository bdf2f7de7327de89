import type {
  ConfigurationContent,
  CookieConfiguration,
  VariantRates,
} from '../../cookies/index.js';
import { standardCategories } from '../../cookies/index.js';
import { commentMaxLength } from '../../templates/index.js';
import { localeName } from '../templates/review-views.js';
import { time } from '../web/format.js';
import {
  checkbox,
  csrfField,
  type FieldErrors,
  formErrors,
  input,
  select,
  textarea,
} from '../web/forms.js';
import { type Html, html } from '../web/html.js';
import { basePath } from '../web/layout.js';
import { publishBadge, rateCell, type StepModel, statusBadge, stepWords } from './models.js';
import { configurationPath, systemPath } from './paths.js';
import { bannerPreviews } from './preview-views.js';
import { cookieTabs } from './section.js';
import { scriptTagField } from './system-views.js';

/** A line of the configurations list, as the spec's list has it. */
export interface ConfigurationListItem {
  configuration: CookieConfiguration;
  systemName: string;
}

export function configurationList(o: {
  items: ConfigurationListItem[];
  search: string;
  zone: string;
  mayCreate: boolean;
  hasSystems: boolean;
}): Html {
  return html`<hgroup><h1>Cookies</h1><p>Banner configurations of your websites, their review and publication.</p></hgroup>
${cookieTabs('configurations')}
${o.mayCreate && o.hasSystems ? html`<p><a href="${basePath}/cookies/configurations/new" role="button">New configuration</a></p>` : ''}
<form method="get" action="${basePath}/cookies" role="search" class="filters">
${input({ name: 'q', label: 'Search by name or system', type: 'search', value: o.search, maxlength: 200 })}
<p><button type="submit">Search</button>${o.search ? html` <a href="${basePath}/cookies">Clear</a>` : ''}</p>
</form>
${
  o.items.length === 0
    ? html`<p>${o.search ? 'No configuration matches this search.' : o.hasSystems ? 'No configuration yet.' : html`No configuration yet: first add a system under <a href="${basePath}/cookies/systems">Systems</a>.`}</p>`
    : html`<div class="table-scroll" tabindex="0" role="region" aria-label="Cookie configurations"><table>
<thead><tr><th scope="col">Cookie Name</th><th scope="col">System</th><th scope="col">Status</th><th scope="col">Publish Status</th><th scope="col">Created At</th></tr></thead>
<tbody>
${o.items.map(
  ({ configuration: c, systemName }) => html`<tr>
<td><a href="${basePath}${configurationPath(c.id)}">${c.name}</a> <small>(version ${c.version})</small></td>
<td><a href="${basePath}${systemPath(c.system)}">${systemName}</a></td>
<td>${statusBadge(c.status)}</td>
<td>${publishBadge(c.published)}</td>
<td>${time(c.created_at, o.zone)}</td>
</tr>`,
)}
</tbody></table></div>`
}`;
}

const categoryNames: Record<string, string> = {
  analytics: 'Analytics',
  marketing: 'Marketing',
  functional: 'Functional',
  personalization: 'Personalization',
};

export function newConfigurationForm(o: {
  csrfToken: string;
  systems: ReadonlyArray<{ scope: string; name: string }>;
  values: { system: string; name: string; effective_date: string; categories: readonly string[] };
  errors: string[];
  fieldErrors: FieldErrors;
}): Html {
  const v = o.values;
  return html`<nav aria-label="breadcrumb"><ul><li><a href="${basePath}/cookies">Cookies</a></li><li>New configuration</li></ul></nav>
<h1>New configuration</h1>
${formErrors(o.errors)}
<form method="post" action="${basePath}/cookies/configurations" novalidate>
${csrfField(o.csrfToken)}
${select({ name: 'system', label: 'System', value: v.system, options: o.systems.map((s) => [s.scope, s.name] as const) })}
${o.fieldErrors.system ? html`<small class="field-error">${o.fieldErrors.system}</small>` : ''}
${input({ name: 'name', label: 'Name', value: v.name, required: true, maxlength: 200, error: o.fieldErrors.name })}
${input({ name: 'effective_date', label: 'Effective date', type: 'date', value: v.effective_date, required: true, hint: 'The day it takes effect, for the record; publishing makes it live.', error: o.fieldErrors.effective_date })}
<fieldset>
<legend>Categories</legend>
<p><small>Necessary cookies are always on. Tick the others the banner asks about; your own categories are added on the draft's page.</small></p>
${standardCategories.map(
  (key) =>
    html`<label for="category-${key}"><input type="checkbox" id="category-${key}" name="categories" value="${key}"${v.categories.includes(key) ? html` checked` : ''}> ${categoryNames[key]}</label>`,
)}
${o.fieldErrors.categories ? html`<small class="field-error">${o.fieldErrors.categories}</small>` : ''}
</fieldset>
<p><small>It starts with the built-in English and Thai texts, a bar at the bottom, and a lifetime of a year: change them on the draft's page.</small></p>
<button type="submit">Create draft</button>
</form>`;
}

/** What the configuration's page may offer the signed-in user. */
export interface ConfigurationActions {
  edit: boolean;
  review: boolean;
  approve: boolean;
  create: boolean;
  delete: boolean;
  /** Why four eyes keeps the user from the step it waits for. */
  fourEyes: string | undefined;
}

export interface ConfigurationPageModel {
  configuration: CookieConfiguration;
  system: { scope: string; name: string };
  steps: StepModel[];
  zone: string;
  scriptTag: string | undefined;
  actions: ConfigurationActions;
  csrfToken: string;
  /** A step refused: what was typed, and why. */
  refusal?: { comment: string; error: string };
  /** The A/B test's results, for a configuration with variants. */
  rates?: VariantRates[];
}

/**
 * The A/B test's opt-in rates: per variant, its share, its choices, and per category the share
 * that granted it with its 95% confidence interval (Wilson's).
 */
function abTest(rates: VariantRates[], content: ConfigurationContent): Html {
  const keys = Object.keys(rates[0]?.categories ?? {});
  const name = (key: string) =>
    content.categories.find((c) => c.key === key)?.texts[content.default_locale]?.name ?? key;
  return html`<h2>A/B test: opt-in rates</h2>
<p><small>Each cell is the share of the variant's choices that granted the category, with its 95% confidence interval: two variants differ when their intervals do not overlap. Every variant was checked at review: rejecting takes no more clicks than accepting, with a control of the same kind, size and colours.</small></p>
<div class="table-scroll" tabindex="0" role="region" aria-label="A/B test"><table>
<thead><tr><th scope="col">Variant</th><th scope="col">Share of visitors</th><th scope="col">Choices</th>${keys.map((key) => html`<th scope="col">${name(key)}</th>`)}</tr></thead>
<tbody>
${rates.map(
  (r) =>
    html`<tr><td class="mono">${r.variant}</td><td>${r.weight}%</td><td>${r.choices}</td>${keys.map(
      (key) => rateCell(r.categories[key]),
    )}</tr>`,
)}
</tbody></table></div>`;
}

export function configurationPage(o: ConfigurationPageModel): Html {
  const c = o.configuration;
  const { content } = c;
  const locales = Object.keys(content.texts);
  return html`<nav aria-label="breadcrumb"><ul><li><a href="${basePath}/cookies">Cookies</a></li><li>${c.name}</li></ul></nav>
<hgroup><h1>${c.name}</h1><p>${statusBadge(c.status)} ${publishBadge(c.published)} version ${c.version} of <a href="${basePath}${systemPath(o.system.scope)}">${o.system.name}</a></p></hgroup>
${o.refusal ? formErrors([o.refusal.error]) : ''}
${c.published && o.scriptTag ? scriptTagField(o.scriptTag) : ''}
${actions(o)}
<h2>Facts</h2>
<dl class="facts">
<dt>Effective date</dt><dd>${c.effective_date}</dd>
<dt>Lifetime of a choice</dt><dd>${c.content.lifetime_days} days</dd>
<dt>Locales</dt><dd>${locales.map((l, i) => html`${i > 0 ? ', ' : ''}${localeName(l)} <span class="mono">${l}</span>${l === content.default_locale ? ' (default)' : ''}`)}</dd>
<dt>Layout</dt><dd>${content.layout.kind === 'bar' ? 'Bar' : 'Box'}, ${content.layout.position}; background <span class="mono">${content.layout.colors.background}</span>, text <span class="mono">${content.layout.colors.text}</span>, accent <span class="mono">${content.layout.colors.accent}</span></dd>
<dt>Content SHA-256</dt><dd class="mono">${c.content_sha256}</dd>
<dt>Fingerprint</dt><dd><span class="mono">${c.fingerprint}</span> <small>(a choice made under another is asked again)</small></dd>
<dt>Created</dt><dd>${time(c.created_at, o.zone)}</dd>
<dt>Last published</dt><dd>${time(c.published_at, o.zone)}</dd>
</dl>
${o.rates ? abTest(o.rates, content) : ''}
<h2>Categories</h2>
<div class="table-scroll" tabindex="0" role="region" aria-label="Categories"><table>
<thead><tr><th scope="col">Key</th><th scope="col">Required</th>${locales.map((l) => html`<th scope="col">Name (${l})</th>`)}</tr></thead>
<tbody>
${content.categories.map(
  (category) =>
    html`<tr><td class="mono">${category.key}</td><td>${category.required ? 'yes: always on' : 'no'}</td>${locales.map((l) => html`<td>${category.texts[l]?.name ?? ''}</td>`)}</tr>`,
)}
</tbody></table></div>
${locales.map(
  (l) => html`<details>
<summary>Texts in ${localeName(l)} <span class="mono">${l}</span></summary>
<dl class="facts" lang="${l}">
<dt>Title</dt><dd>${content.texts[l]?.title}</dd>
<dt>Text</dt><dd>${content.texts[l]?.body}</dd>
<dt>Buttons</dt><dd>${content.texts[l]?.accept_all} · ${content.texts[l]?.reject_all} · ${content.texts[l]?.preferences} · ${content.texts[l]?.save} · ${content.texts[l]?.close}</dd>
<dt>Preferences heading</dt><dd>${content.texts[l]?.preferences_title}</dd>
<dt>Policy link</dt><dd>${content.texts[l]?.policy_label}${content.texts[l]?.policy_url ? html` (<span class="mono">${content.texts[l]?.policy_url}</span>)` : ' (no address)'}</dd>
<dt>Global Privacy Control note</dt><dd>${content.texts[l]?.gpc_note}</dd>
</dl>
</details>`,
)}
${bannerPreviews({ id: c.id, locales })}
${timeline(o.steps, o.zone)}`;
}

function timeline(steps: StepModel[], zone: string): Html {
  return html`<h2 id="timeline">Timeline</h2>
<ol class="timeline" aria-labelledby="timeline">
${steps.map(
  (s) =>
    html`<li class="step ${s.step}"><strong>${stepWords[s.step] ?? s.step}</strong> by ${s.actor} <span>${time(s.at, zone)}</span>${s.note ? html`<blockquote>${s.note}</blockquote>` : ''}</li>`,
)}
</ol>`;
}

/**
 * The forms of what the user may do now, by status, permission and four eyes. Each button names
 * its route (`formaction`); the form's own action is its first button's, so that no form names a
 * route its reader may not use.
 */
function actions(o: ConfigurationPageModel): Html {
  const c = o.configuration;
  const { actions: may } = o;
  const base = `${basePath}${configurationPath(c.id)}`;
  const form = (body: Html) =>
    html`<form method="post" action="${/formaction="([^"]+)"/.exec(body.text)?.[1] ?? base}">${csrfField(o.csrfToken)}${body}</form>`;
  const comment = (label: string) =>
    textarea({
      name: 'comment',
      label,
      value: o.refusal?.comment ?? '',
      rows: 3,
      maxlength: commentMaxLength,
    });
  const fourEyes = may.fourEyes ? html`<p class="notice" role="note">${may.fourEyes}</p>` : '';
  const parts: Html[] = [];
  if (c.status === 'draft' && may.edit) {
    parts.push(html`<h2>Draft</h2>
<p><a href="${base}/edit" role="button">Edit the draft</a></p>
<p>Once submitted it can no longer be edited, unless a reviewer sends it back.</p>
${form(html`${comment('Note for the reviewer (optional)')}<button type="submit" formaction="${base}/submit">Submit for review</button>`)}`);
  }
  if (c.status === 'pending_review' && may.review) {
    parts.push(html`<h2>Your review</h2>${fourEyes}
${form(html`${comment('Comment')}<div class="actions">${may.fourEyes ? '' : html`<button type="submit" formaction="${base}/pass">Pass to approval</button>`}
<button type="submit" formaction="${base}/send-back" class="secondary">Send back to draft</button></div>`)}`);
  }
  if (c.status === 'pending_approval' && may.approve) {
    parts.push(html`<h2>Your approval</h2>${fourEyes}
${form(html`${comment('Comment')}
${may.fourEyes ? '' : checkbox({ name: 'publish_now', label: 'And publish it now', checked: false, hint: `It then replaces the configuration published on ${o.system.name}, if there is one.` })}
<div class="actions">${may.fourEyes ? '' : html`<button type="submit" formaction="${base}/approve">Approve</button>`}
<button type="submit" formaction="${base}/reject" class="secondary">Reject</button></div>`)}`);
  }
  if (c.status === 'approved' && !c.published && may.edit) {
    parts.push(html`<h2>Publication</h2>
<p>Publishing puts it on ${o.system.name} in place of the configuration published there, if any.</p>
${form(html`<button type="submit" formaction="${base}/publish">Publish</button>`)}`);
  }
  if (c.published && may.edit) {
    parts.push(html`<h2>Publication</h2>
<p>Unpublishing takes the banner off the site: its script answers 404 until another is published.</p>
${form(html`<button type="submit" formaction="${base}/unpublish" class="secondary">Unpublish</button>`)}`);
  }
  if (may.create) {
    parts.push(
      html`${form(html`<button type="submit" formaction="${base}/copy" class="secondary">New configuration from this one</button>`)}`,
    );
  }
  if (c.status === 'draft' && may.delete) {
    parts.push(html`<h2>Delete the draft</h2>
${form(html`${checkbox({ name: 'confirm', label: 'Delete this draft and its timeline', checked: false, hint: 'The audit log keeps that it existed.' })}<button type="submit" formaction="${base}/delete" class="secondary">Delete the draft</button>`)}`);
  }
  return html`${parts}`;
}
