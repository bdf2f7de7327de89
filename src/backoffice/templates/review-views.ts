import type {
  EditKind,
  ReviewStep,
  VersionEditRow,
  VersionReviewRow,
} from '../../templates/index.js';
import { commentMaxLength } from '../../templates/index.js';
import { badge, count, time } from '../web/format.js';
import { checkbox, csrfField, formErrors, textarea } from '../web/forms.js';
import { type Html, html, segment, trusted } from '../web/html.js';
import { basePath } from '../web/layout.js';
import type { TemplateModel, VersionModel } from './models.js';

/** A version's page in the back-office (below `basePath`). */
export const versionPath = (code: string, id: string) =>
  `/templates/${segment(code)}/versions/${segment(id)}`;

export const reviewPath = (code: string, id: string) => `${versionPath(code, id)}/review`;

const stepWords: Record<ReviewStep, string> = {
  submitted: 'Submitted for review',
  sent_back: 'Sent back to draft',
  passed: 'Review passed',
  approved: 'Approved',
  rejected: 'Rejected',
  schedule_cancelled: 'Go-live cancelled',
};

/** The status badge of a version, in words a reader of the page uses. */
export function statusBadge({
  status,
  scheduled,
}: Pick<VersionModel, 'status' | 'scheduled'>): Html {
  if (scheduled) return badge('scheduled');
  const label = {
    draft: 'draft',
    in_review: 'in review',
    reviewed: 'awaiting approval',
    rejected: 'rejected',
    published: 'published',
  }[status];
  return badge(status, label);
}

type Who = Pick<VersionReviewRow, 'actor' | 'actor_name'>;

const who = (s: Who) =>
  s.actor_name ? html`${s.actor_name} <span class="mono">(${s.actor})</span>` : s.actor;

const editWords: Record<Exclude<EditKind, 'created'>, string> = {
  edited: 'Text changed',
  locale_added: 'Locale added',
  locale_removed: 'Locale removed',
};

/** One locale's hash before and after a change, as evidence of what changed. */
function hashes(e: VersionEditRow): Html {
  const sha = (value: string | null) => html`<span class="mono hash">${value ?? 'none'}</span>`;
  return e.kind === 'created' || e.kind === 'locale_added'
    ? html`<span class="mono">${e.locale}</span>: SHA-256 ${sha(e.sha256_after)}`
    : html`<span class="mono">${e.locale}</span>: SHA-256 ${sha(e.sha256_before)} → ${sha(e.sha256_after)}`;
}

/**
 * A version's way so far: created (by whom, in which locales), each change of its text (who,
 * when, which locale, the SHA-256 before and after), each step of review with who and the
 * comment (a submission after a send-back says so), published. A draft made before changes were
 * recorded shows "Draft created" without a name.
 */
export function timeline(
  version: VersionModel,
  steps: VersionReviewRow[],
  edits: VersionEditRow[],
  zone: string,
): Html {
  const created = edits.filter((e) => e.kind === 'created');
  const first = created[0];
  const items: Array<{ at: string; item: Html }> = [];
  let sentBack = false;
  for (const s of steps) {
    const words =
      s.step === 'submitted' && sentBack ? 'Submitted for review again' : stepWords[s.step];
    if (s.step === 'sent_back') sentBack = true;
    items.push({
      at: s.created_at,
      item: html`<li class="step ${s.step}"><strong>${words}</strong> by ${who(s)} <span>${time(s.created_at, zone)}</span>${s.comment ? html`<blockquote>${s.comment}</blockquote>` : ''}</li>`,
    });
  }
  for (const e of edits) {
    if (e.kind === 'created') continue;
    items.push({
      at: e.created_at,
      item: html`<li class="change ${e.kind}"><strong>${editWords[e.kind]}</strong> (${localeName(e.locale)}) by ${who(e)} <span>${time(e.created_at, zone)}</span><br><small>${hashes(e)}</small></li>`,
    });
  }
  items.sort((x, y) => x.at.localeCompare(y.at));
  const start = first
    ? html`<li class="change created"><strong>Draft created</strong> by ${who(first)} <span>${time(first.created_at, zone)}</span>${created.map((e) => html`<br><small>${hashes(e)}</small>`)}</li>`
    : html`<li><strong>Draft created</strong> <span>${time(version.createdAt, zone)}</span></li>`;
  return html`<h2 id="timeline">Timeline</h2>
<ol class="timeline" aria-labelledby="timeline">
${start}
${items.map((i) => i.item)}
${version.publishedAt ? html`<li class="step published"><strong>${version.scheduled ? 'Goes live' : 'Published'} as version ${version.version}</strong> <span>${time(version.publishedAt, zone)}</span></li>` : ''}
</ol>`;
}

/** What the review page may offer the signed-in user at the version's step. */
export interface ReviewActions {
  submit: boolean;
  review: boolean;
  approve: boolean;
  /** Why a step the user's permissions allow is not theirs to take (four eyes). */
  fourEyes: string | undefined;
}

export interface ReviewPageModel {
  template: TemplateModel;
  version: VersionModel;
  steps: VersionReviewRow[];
  /** Every change of its text, oldest first. */
  edits: VersionEditRow[];
  zone: string;
  /** The version the API answers today, if any. */
  latest: { version: number; tag: string } | undefined;
  nextNumber: number;
  customersToPend: number;
  /** Another release of the template that is scheduled: none can be approved until it is live. */
  scheduled: { version: number; tag: string; at: string } | undefined;
  /**
   * Its text in each locale, its own first, with how the words differ from the latest version's
   * text in that locale (none when there is no latest version).
   */
  locales: Array<{ locale: string; contentHtml: string; changes: Html | undefined }>;
  /** The latest version's locales this one lacks: approving it needs a confirmation. */
  dropped: string[];
  /**
   * The partners it lists, by code, and (when there is a latest version) those it adds and drops
   * against that one's list.
   */
  partners: {
    listed: ReadonlyArray<{ code: string; name: string }>;
    added: ReadonlyArray<{ code: string; name: string }>;
    removed: ReadonlyArray<{ code: string; name: string }>;
  };
  /** How each locale changed since the user's last review of it, if they reviewed it before. */
  sinceReview: { at: string; locales: Array<{ locale: string; changes: Html }> } | undefined;
  actions: ReviewActions;
  csrfToken: string;
  /** A refused step: what was typed, and why (of the comment, or of the version). */
  refusal?: {
    step: 'submit' | 'review' | 'approve';
    comment: string;
    commentError?: string;
    formError?: string;
    /** The go-live time typed into the approval form. */
    effectiveAt?: string;
  };
}

/**
 * What a reviewer needs to decide: the consequence (the number it takes, the customers who become
 * pending), re-consent, the words that change, the text as customers will see it, the way so far,
 * and the forms for the steps the user may take now.
 */
export function reviewPage(o: ReviewPageModel): Html {
  const { template, version } = o;
  const versionHref = `${basePath}/templates/${segment(template.code)}/versions/${segment(version.id)}`;
  const unpublished = version.status !== 'published' && version.status !== 'rejected';
  return html`<nav aria-label="breadcrumb"><ul><li><a href="${basePath}/templates">Templates</a></li><li><a href="${basePath}/templates/${segment(template.code)}">${template.code}</a></li><li><a href="${versionHref}">${version.tag}</a> review</li></ul></nav>
<hgroup><h1>Review: ${template.name}, tag ${version.tag}</h1><p>${statusBadge(version)}${version.version === null ? '' : ` version ${version.version}`}</p></hgroup>
${unpublished || version.scheduled ? consequence(o) : ''}
<dl class="facts">
<dt>Re-consent</dt><dd>${version.allowReconsent ? 'allowed: a customer who decided on this version can decide again' : 'not allowed: a decision on this version is final (a withdraw is always accepted)'}</dd>
<dt>Content SHA-256</dt><dd class="mono">${version.contentSha256}</dd>
</dl>
${partnersSection(o, unpublished || version.scheduled)}
${o.sinceReview ? sinceReviewSection(o.sinceReview) : ''}
${o.locales.map(
  (l) => html`<section class="locale" aria-labelledby="locale-${l.locale}">
<h2 id="locale-${l.locale}">${localeName(l.locale)} <span class="mono">${l.locale}</span></h2>
${(unpublished || version.scheduled) && l.changes ? html`<h3>What changes</h3>${l.changes}` : ''}
<h3>As customers will see it</h3>
<div class="content-preview" lang="${l.locale}" tabindex="0" role="region" aria-label="Content in ${l.locale}">${trusted(l.contentHtml)}</div>
</section>`,
)}
${unpublished && o.dropped.length > 0 ? html`<p class="notice" role="note">The latest version is also in ${o.dropped.join(', ')}, which this one lacks: customers asking for ${o.dropped.length === 1 ? 'it' : 'them'} would get the default locale.</p>` : ''}
${timeline(version, o.steps, o.edits, o.zone)}
${stepForms(o)}`;
}

/** The partners its text allows, and what changes against the latest version's list. */
function partnersSection(o: ReviewPageModel, showChanges: boolean): Html {
  const { listed, added, removed } = o.partners;
  const names = (list: ReadonlyArray<{ code: string; name: string }>) =>
    html`${list.map((p, i) => html`${i > 0 ? ', ' : ''}${p.name} (<span class="mono">${p.code}</span>)`)}`;
  const changes =
    !showChanges || !o.latest
      ? ''
      : added.length === 0 && removed.length === 0
        ? html`<p>The same partners as version ${o.latest.version}.</p>`
        : html`<p>Against version ${o.latest.version}: ${added.length > 0 ? html`<strong>added</strong> ${names(added)}` : ''}${added.length > 0 && removed.length > 0 ? '; ' : ''}${removed.length > 0 ? html`<strong>removed</strong> ${names(removed)}` : ''}.</p>`;
  return html`<section class="partners" aria-labelledby="partners">
<h2 id="partners">Partners</h2>
${listed.length === 0 ? html`<p>None: this version lists no partner to share customer data with.</p>` : html`<ul>${listed.map((p) => html`<li>${p.name} <span class="mono">${p.code}</span></li>`)}</ul>`}
${changes}
</section>`;
}

function sinceReviewSection(since: NonNullable<ReviewPageModel['sinceReview']>): Html {
  return html`<section class="since-review" aria-labelledby="since-review">
<h2 id="since-review">Changes since your last review</h2>
${since.locales.map((l) => html`<h3>${localeName(l.locale)} <span class="mono">${l.locale}</span></h3>${l.changes}`)}
</section>`;
}

function consequence(o: ReviewPageModel): Html {
  const pending = o.latest
    ? html`<strong>${count(o.customersToPend, 'customer', 'customers')}</strong> decided on the current latest version (${o.latest.version}, tag <span class="mono">${o.latest.tag}</span>) and will become pending: the API will answer <code>accepted: false</code> for them until they decide on the new one.`
    : html`It will be the first published version of this template: no customer becomes pending.`;
  if (o.version.scheduled) {
    return html`<p class="consequence">Approved: it goes live as version ${o.version.version} at <strong>${time(o.version.publishedAt, o.zone)}</strong>; until then the API answers the current latest version. ${pending} (Counted now: the count is taken again at every visit until it goes live.)</p>`;
  }
  const scheduled = o.scheduled
    ? html` <strong>Version ${o.scheduled.version} (tag <span class="mono">${o.scheduled.tag}</span>) is scheduled to go live at ${time(o.scheduled.at, o.zone)}: it must go live, or be cancelled, before this one can be approved.</strong>`
    : '';
  return html`<p class="consequence">Once approved it is published as version ${o.nextNumber}, at once or at the time you give. ${pending}${scheduled}</p>`;
}

function commentField(o: ReviewPageModel, step: 'submit' | 'review' | 'approve', label: string) {
  const refused = o.refusal?.step === step ? o.refusal : undefined;
  return textarea({
    name: 'comment',
    label,
    value: refused?.comment ?? '',
    rows: 3,
    maxlength: commentMaxLength,
    error: refused?.commentError,
  });
}

function stepForms(o: ReviewPageModel): Html {
  const { template, version, actions } = o;
  const base = `${basePath}/templates/${segment(template.code)}/versions/${segment(version.id)}`;
  // Each button names its step (formaction); the form's action is its first button's, the one
  // pressing Enter uses, so the form never names a route its reader may not use.
  const form = (body: Html) =>
    html`${formErrors(o.refusal?.formError ? [o.refusal.formError] : [])}
<form method="post" action="${/formaction="([^"]+)"/.exec(body.text)?.[1] ?? base}" class="review-step">${csrfField(o.csrfToken)}${body}</form>`;
  const fourEyes = actions.fourEyes
    ? html`<p class="notice" role="note">${actions.fourEyes}</p>`
    : '';
  if (version.status === 'draft' && actions.submit) {
    return html`<h2>Submit for review</h2>
<p>Once submitted the draft can no longer be edited, unless a reviewer sends it back.</p>
${form(html`${commentField(o, 'submit', 'Note for the reviewer (optional)')}
<button type="submit" formaction="${base}/submit">Submit for review</button>`)}`;
  }
  if (version.status === 'in_review' && actions.review) {
    return html`<h2>Your review</h2>${fourEyes}
<p>Pass it on to an approver, or send it back to draft saying what must change.</p>
${form(html`${commentField(o, 'review', 'Comment (required to send it back)')}
<div class="actions">${actions.fourEyes ? '' : html`<button type="submit" formaction="${base}/pass">Pass to approval</button>`}
<button type="submit" formaction="${base}/send-back" class="secondary">Send back to draft</button></div>`)}`;
  }
  if (version.scheduled && actions.approve) {
    return html`<h2>Cancel the go-live</h2>
<p>Until it goes live it can be cancelled: it then waits for approval again, and gives its number back.</p>
${form(html`<button type="submit" formaction="${base}/cancel-schedule" class="secondary">Cancel the go-live of version ${version.version}</button>`)}`;
  }
  if (version.status === 'reviewed' && actions.approve) {
    const refused = o.refusal?.step === 'approve' ? o.refusal : undefined;
    return html`<h2>Your approval</h2>${fourEyes}
${form(html`${commentField(o, 'approve', 'Comment (required to reject)')}
<fieldset>
<legend>When it goes live</legend>
<label for="effective_at">Goes live at (time in ${o.zone})
<input type="datetime-local" step="1" id="effective_at" name="effective_at" value="${refused?.effectiveAt ?? ''}" aria-describedby="effective_at-help">
</label>
<small id="effective_at-help">A time to come: the API shows it from then on. A time already past: live at once.</small>
${checkbox({ name: 'publish_now', label: 'Or publish at once, with no go-live time', checked: false, hint: 'An empty time alone publishes nothing: tick this to publish now.' })}
</fieldset>
${
  o.dropped.length > 0
    ? checkbox({
        name: 'drop_locales',
        label: `Drop ${o.dropped.join(', ')}: the latest version has ${o.dropped.length === 1 ? 'this locale' : 'these locales'}, this one does not`,
        checked: false,
      })
    : ''
}
<div class="actions">${actions.fourEyes || o.scheduled ? '' : html`<button type="submit" formaction="${base}/approve">Approve and publish version ${o.nextNumber}</button>`}
<button type="submit" formaction="${base}/reject" class="secondary">Reject</button></div>`)}`;
  }
  return html``;
}

const localeNames = new Intl.DisplayNames(['en'], { type: 'language' });

/** A locale's name in English (`th`: Thai), for the headings of its text. */
export function localeName(locale: string): string {
  try {
    return localeNames.of(locale) ?? locale;
  } catch {
    return locale;
  }
}
