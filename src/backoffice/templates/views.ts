import type { VersionEditRow, VersionReviewRow } from '../../templates/index.js';
import {
  type DataCategory,
  dataCategories,
  maxValidityMonths,
  type RepresentationBasis,
  type RepresentationRule,
  representationBases,
  type WhoActs,
  whoActs,
} from '../../templates/index.js';
import { productFilter } from '../products/views.js';
import { badge, count, time } from '../web/format.js';
import {
  checkbox,
  csrfField,
  type FieldErrors,
  formErrors,
  input,
  select,
  textarea,
} from '../web/forms.js';
import { type Html, html, segment, trusted } from '../web/html.js';
import { basePath } from '../web/layout.js';
import type { TemplateListItem, TemplateModel, VersionModel } from './models.js';
import { localeName, reviewPath, statusBadge, timeline, versionPath } from './review-views.js';

const templatePath = (code: string) => `${basePath}/templates/${segment(code)}`;
const pagePath = (code: string, id: string) => `${basePath}${versionPath(code, id)}`;

export function templateList(
  templates: TemplateListItem[],
  o: {
    zone: string;
    mayCreate: boolean;
    products: ReadonlyArray<{ code: string; name: string }>;
    product: string;
  },
): Html {
  return html`<hgroup><h1>Templates</h1><p>Consent texts and their versions.</p></hgroup>
${o.mayCreate ? html`<p><a href="${basePath}/templates/new" role="button">New template</a></p>` : ''}
${productFilter(`${basePath}/templates`, o.products, o.product)}
${
  templates.length === 0
    ? html`<p>No template yet. Create one, write a draft version and submit it for review: once approved, the API answers it.</p>`
    : byKind(templates, o.zone)
}`;
}

/**
 * The templates in one table; those covering sensitive data (PDPA section 26) first, apart, in
 * a table of their own that names the data.
 */
function byKind(templates: readonly TemplateListItem[], zone: string): Html {
  const sensitive = templates.filter((t) => t.dataCategories.length > 0);
  if (sensitive.length === 0) return templateTable(templates, 'Templates', zone);
  const others = templates.filter((t) => t.dataCategories.length === 0);
  return html`<section aria-labelledby="sensitive-templates">
<h2 id="sensitive-templates">Covering sensitive data</h2>
<p><small>PDPA section 26: a given on these needs the person's explicit consent, with how they confirmed and the text they were shown.</small></p>
${templateTable(sensitive, 'Templates covering sensitive data', zone, true)}
</section>
${others.length > 0 ? html`<h2>Other templates</h2>${templateTable(others, 'Other templates', zone)}` : ''}`;
}

function templateTable(
  templates: readonly TemplateListItem[],
  label: string,
  zone: string,
  sensitive = false,
): Html {
  return html`<div class="table-scroll" tabindex="0" role="region" aria-label="${label}"><table>
<thead><tr><th scope="col">Code</th><th scope="col">Name</th>${sensitive ? html`<th scope="col">Sensitive data</th>` : ''}<th scope="col">Product</th><th scope="col">Latest version</th><th scope="col">Published</th><th scope="col">Drafts and reviews</th></tr></thead>
<tbody>
${templates.map(
  (t) => html`<tr>
<td><a href="${templatePath(t.code)}">${t.code}</a></td>
<td>${t.name}${t.archived ? html` ${badge('archived')}` : ''}</td>
${sensitive ? html`<td>${t.dataCategories.map(categoryName).join(', ')}</td>` : ''}
<td>${t.productName ?? ''}</td>
<td>${t.latestVersion === null ? badge('draft', 'none published') : html`${t.latestVersion} <span class="mono">(${t.latestTag})</span>`}</td>
<td>${time(t.latestPublishedAt, zone)}</td>
<td>${t.drafts}</td>
</tr>`,
)}
</tbody></table></div>`;
}

/** How a page names a category of sensitive data. */
const categoryNames: Record<DataCategory, string> = {
  race: 'race',
  ethnicity: 'ethnicity',
  'political-opinions': 'political opinions',
  beliefs: 'religious or philosophical beliefs',
  'sexual-behaviour': 'sexual behaviour',
  'criminal-records': 'criminal records',
  health: 'health',
  disability: 'disability',
  'trade-union': 'trade union membership',
  genetic: 'genetic data',
  biometric: 'biometric data',
  other: 'other data the PDPC prescribes',
};

const categoryName = (code: string) => categoryNames[code as DataCategory] ?? code;

export function newTemplateForm(o: {
  csrfToken: string;
  values: Record<string, string>;
  products: ReadonlyArray<{ code: string; name: string }>;
  /** Whether the user may write versions: the first version's fields are theirs. */
  mayDraft: boolean;
  errors: string[];
  fieldErrors: FieldErrors;
}): Html {
  return html`<nav aria-label="breadcrumb"><ul><li><a href="${basePath}/templates">Templates</a></li><li>New</li></ul></nav>
<h1>New template</h1>
${formErrors(o.errors)}
<form method="post" action="${basePath}/templates" novalidate>
${csrfField(o.csrfToken)}
${input({ name: 'code', label: 'Code', value: o.values.code, required: true, maxlength: 64, hint: 'What client systems put in the API path, e.g. privacy_policy. It cannot be changed later.', error: o.fieldErrors.code })}
${input({ name: 'name', label: 'Name', value: o.values.name, required: true, maxlength: 200, error: o.fieldErrors.name })}
${textarea({ name: 'description', label: 'Description (optional)', value: o.values.description, rows: 3, maxlength: 2000, error: o.fieldErrors.description })}
${
  o.products.length === 0
    ? html`<p><small>It goes to a new product "General", which you can rename under Products.</small></p>`
    : html`${select({ name: 'product', label: 'Product', value: o.values.product ?? '', options: o.products.map((p) => [p.code, p.name] as const) })}${o.fieldErrors.product ? html`<small class="field-error">${o.fieldErrors.product}</small>` : ''}`
}
${input({ name: 'locale', label: 'Default locale', value: o.values.locale ?? 'en', maxlength: 35, hint: 'The language of its texts, as a BCP 47 tag such as en, th or en-GB; a request naming no locale, or one it lacks, gets this one. Other locales are added to each version.', error: o.fieldErrors.locale })}
${
  o.mayDraft
    ? html`<fieldset>
<legend>First version (optional)</legend>
<p><small>Write it now and it is saved as the template's first draft, to submit for review; or leave it empty and write it later.</small></p>
${input({ name: 'tag', label: 'Tag', value: o.values.tag ?? '', maxlength: 64, hint: 'A dotted number such as 1.0.', error: o.fieldErrors.tag })}
${textarea({ name: 'content_html', label: 'Content (HTML)', value: o.values.content_html ?? '', rows: 8, error: o.fieldErrors.content_html })}
${checkbox({ name: 'allow_reconsent', label: 'Allow re-consent on this version', checked: o.values.allow_reconsent !== 'false' })}
</fieldset>`
    : ''
}
<button type="submit">Create template</button>
</form>`;
}

export function templatePage(o: {
  template: TemplateModel;
  versions: VersionModel[];
  customers: number;
  zone: string;
  may: { draft: boolean; edit: boolean; retire: boolean; change: boolean };
  product: { code: string; name: string } | undefined;
  /** The products it may move to (when the user may change it). */
  products: ReadonlyArray<{ code: string; name: string }>;
  csrfToken: string;
}): Html {
  const { template } = o;
  const latest = o.versions.find((v) => v.status === 'published' && !v.scheduled);
  const scheduled = o.versions.find((v) => v.scheduled);
  const archived = template.archivedAt !== null;
  return html`<nav aria-label="breadcrumb"><ul><li><a href="${basePath}/templates">Templates</a></li><li>${template.code}</li></ul></nav>
<hgroup><h1>${template.name}</h1><p><span class="mono">${template.code}</span>${archived ? html` ${badge('archived')}` : ''}</p></hgroup>
${archived ? html`<p class="notice" role="note">Archived ${time(template.archivedAt, o.zone)}: the API answers <code>404</code> for its latest version and pending state. Its versions, decisions and receipts stay.</p>` : ''}
${template.description ? html`<p>${template.description}</p>` : ''}
<dl class="facts">
${o.product ? html`<dt>Product</dt><dd><a href="${basePath}/products/${segment(o.product.code)}">${o.product.name}</a></dd>` : ''}
<dt>Latest version</dt><dd>${latest ? html`${latest.version} (tag <span class="mono">${latest.tag}</span>), published ${time(latest.publishedAt, o.zone)}` : 'none published yet: the API answers 404 for this template'}</dd>
${scheduled ? html`<dt>Scheduled</dt><dd>version ${scheduled.version} (tag <span class="mono">${scheduled.tag}</span>) goes live ${time(scheduled.publishedAt, o.zone)}: <a href="${basePath}${reviewPath(template.code, scheduled.id)}">see or cancel it</a></dd>` : ''}
<dt>Customers</dt><dd>${count(o.customers, 'customer has', 'customers have')} decided on this template</dd>
<dt>Default locale</dt><dd>${localeName(template.defaultLocale)} <span class="mono">${template.defaultLocale}</span></dd>
<dt>Consent valid for</dt><dd>${template.validityMonths === null ? 'no limit: a consent given stays valid until withdrawn' : html`${count(template.validityMonths, 'month', 'months')} after it is given; then the API asks the customer again`}</dd>
<dt>Sensitive data</dt><dd>${template.dataCategories.length === 0 ? 'none' : html`${template.dataCategories.map(categoryName).join(', ')}: a given needs explicit consent (PDPA section 26)`}</dd>
<dt>Who may decide</dt><dd>${template.representation === undefined ? 'no rule: whoever the client system says acted (PDPA section 20)' : representationWords(template.representation)}</dd>
<dt>Created</dt><dd>${time(template.createdAt, o.zone)}</dd>
</dl>
<h2>Versions</h2>
${o.may.draft && !archived ? html`<p><a href="${templatePath(template.code)}/versions/new" role="button">New draft version</a></p>` : ''}
${
  o.versions.length === 0
    ? html`<p>No version yet.</p>`
    : html`<div class="table-scroll" tabindex="0" role="region" aria-label="Versions"><table>
<thead><tr><th scope="col">Version</th><th scope="col">Tag</th><th scope="col">Status</th><th scope="col">Re-consent</th><th scope="col">Changed</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>
${o.versions.map(
  (v) => html`<tr>
<td>${v.version ?? '—'}</td>
<td class="mono">${v.tag}</td>
<td>${statusBadge(v)}</td>
<td>${v.allowReconsent ? 'allowed' : 'not allowed'}</td>
<td>${time(v.changedAt, o.zone)}</td>
<td class="actions"><a href="${pagePath(template.code, v.id)}">${v.status === 'draft' && o.may.edit ? 'View or edit' : 'View'}<span class="visually-hidden"> ${v.tag}</span></a>${v.status === 'in_review' || v.status === 'reviewed' || v.scheduled ? html` <a href="${basePath}${reviewPath(template.code, v.id)}">Review<span class="visually-hidden"> ${v.tag}</span></a>` : ''}</td>
</tr>`,
)}
</tbody></table></div>`
}
${o.may.change ? detailsForm(template, o.product, o.products, o.csrfToken) : ''}
${o.may.change ? sensitiveDataForm(template, o.csrfToken) : ''}
${o.may.change ? representationForm(template, o.csrfToken) : ''}
${o.may.retire ? retireForm(template, latest !== undefined, o.csrfToken) : ''}`;
}

/**
 * Its name, product, default locale (which must be one it has a text in) and validity period;
 * never its code.
 */
function detailsForm(
  template: TemplateModel,
  product: { code: string } | undefined,
  products: ReadonlyArray<{ code: string; name: string }>,
  csrfToken: string,
): Html {
  return html`<h2>Name, product, default locale and validity</h2>
<form method="post" action="${templatePath(template.code)}/details">${csrfField(csrfToken)}
${input({ name: 'name', label: 'Name', value: template.name, required: true, maxlength: 200 })}
${select({ name: 'product', label: 'Product', value: product?.code ?? '', options: products.map((p) => [p.code, p.name] as const) })}
${input({ name: 'default_locale', label: 'Default locale', value: template.defaultLocale, required: true, maxlength: 35, hint: 'One the template has a text in: a request naming no locale, or one it lacks, gets it. The code stays as it is.' })}
${input({ name: 'validity_months', label: 'Consent valid for (months, optional)', value: template.validityMonths === null ? '' : String(template.validityMonths), maxlength: 3, hint: `A whole number from 1 to ${maxValidityMonths}, or empty for no limit. A customer's consent then lapses that many calendar months after they gave it (31 January + 1 month is the end of February), and the API's pending answers accepted: false until they give it again.` })}
<button type="submit" class="secondary">Save the changes</button></form>`;
}

/** The sensitive data it covers: a box per category of PDPA section 26. */
function sensitiveDataForm(template: TemplateModel, csrfToken: string): Html {
  return html`<h2>Sensitive data</h2>
<form method="post" action="${templatePath(template.code)}/sensitive-data">${csrfField(csrfToken)}
<fieldset>
<legend>The sensitive data this template covers (PDPA section 26)</legend>
<p><small>With any ticked, the API refuses a given without the explicit act: how the person confirmed (a separate tick, a signature, a one-time code) and the exact text they were shown. It applies to every version at once.</small></p>
${dataCategories.map(
  (code) =>
    html`<label><input type="checkbox" name="data_categories" value="${code}"${template.dataCategories.includes(code) ? html` checked` : ''}> ${categoryName(code)}</label>`,
)}
</fieldset>
<button type="submit" class="secondary">Save the sensitive data</button></form>`;
}

const basisNames: Record<RepresentationBasis, string> = {
  'under-10': 'Under 10',
  '10-19': '10 to 19',
  adult: 'Adult',
  'court-order': 'Under a court order (guardian or curator)',
};

const whoNames: Record<WhoActs, string> = {
  subject: 'the subject',
  representative: 'a representative',
  'subject-with-representative': "the subject with a representative's co-consent",
  anyone: 'the subject or a representative',
};

/** The rule in words: "Under 10: a representative; 10 to 19: the subject with …". */
function representationWords(rule: RepresentationRule): string {
  return representationBases
    .filter((basis) => rule[basis] !== undefined)
    .map((basis) => `${basisNames[basis]}: ${whoNames[rule[basis] as WhoActs]}`)
    .join('; ');
}

/** Who may decide for whom: who must act for each basis a decision states (PDPA section 20). */
function representationForm(template: TemplateModel, csrfToken: string): Html {
  const rule = template.representation ?? {};
  return html`<h2>Who may decide</h2>
<form method="post" action="${templatePath(template.code)}/representation">${csrfField(csrfToken)}
<fieldset>
<legend>Who must act, by the basis a decision states (PDPA section 20)</legend>
<p><small>A decision states who acted and the subject's age band or a court order. With a rule, the API refuses a decision without it, or one made by someone else than the rule names. Declining and withdrawing need no co-consent.</small></p>
${representationBases.map((basis) =>
  select({
    name: basis,
    label: basisNames[basis],
    value: rule[basis] ?? '',
    options: [['', 'No rule'] as const, ...whoActs.map((who) => [who, whoNames[who]] as const)],
  }),
)}
</fieldset>
<button type="submit" class="secondary">Save who may decide</button></form>`;
}

/**
 * Taking the template out of use: a template never published is deleted with its drafts; one
 * published is archived (its record stays), and can be restored.
 */
function retireForm(template: TemplateModel, published: boolean, csrfToken: string): Html {
  const path = templatePath(template.code);
  if (template.archivedAt) {
    return html`<h2>Restore</h2>
<form method="post" action="${path}/restore">${csrfField(csrfToken)}
<button type="submit" class="secondary">Restore this template</button></form>`;
  }
  return published
    ? html`<h2>Archive</h2>
<p>Archiving takes the template out of the API (<code>latest</code> and <code>pending</code> answer <code>404</code>); its versions, decisions, receipts and the log stay, and it can be restored. A template that was published is never deleted: its versions may be named by a decision at any moment.</p>
<form method="post" action="${path}/retire">${csrfField(csrfToken)}
<label><input type="checkbox" name="confirm" value="true" required> Yes, archive ${template.code}</label>
<button type="submit" class="secondary">Archive this template</button></form>`
    : html`<h2>Delete</h2>
<p>It was never published: deleting it removes it and its drafts for good.</p>
<form method="post" action="${path}/retire">${csrfField(csrfToken)}
<label><input type="checkbox" name="confirm" value="true" required> Yes, delete ${template.code}</label>
<button type="submit" class="secondary">Delete this template</button></form>`;
}

export function versionForm(o: {
  template: TemplateModel;
  version: VersionModel | undefined;
  csrfToken: string;
  values: {
    tag: string;
    content_html: string;
    file_url: string;
    allow_reconsent: boolean;
    from_release: string;
  };
  /** The sanitizer's output for `values.content_html`: exactly what saving would keep. */
  preview: string;
  errors: string[];
  fieldErrors: FieldErrors;
  /** The tenant's partners to choose from, and the codes chosen; none: no choice shown. */
  partners?: PartnerChoice | undefined;
}): Html {
  const action = o.version
    ? pagePath(o.template.code, o.version.id)
    : `${templatePath(o.template.code)}/versions`;
  const previewPath = `${templatePath(o.template.code)}/preview`;
  // With scripts, htmx posts the form as the content changes and swaps the answer into the
  // preview; without, the Preview button posts it to the same address for the whole page.
  const live = html` hx-post="${previewPath}" hx-trigger="input changed delay:400ms" hx-target="#preview" hx-swap="innerHTML" hx-include="closest form" hx-sync="this:replace"`;
  return html`${formErrors(o.errors)}
<form method="post" action="${action}" novalidate>
${csrfField(o.csrfToken)}
<input type="hidden" name="version_id" value="${o.version?.id ?? ''}">
${o.version ? '' : html`<input type="hidden" name="from_release" value="${o.values.from_release}">`}
${input({ name: 'tag', label: 'Tag', value: o.values.tag, required: true, maxlength: 64, hint: 'A dotted number such as 1.0 or 2.1, unique in this template.', error: o.fieldErrors.tag })}
<div class="editor">
<div>
${textarea({ name: 'content_html', label: 'Content (HTML)', value: o.values.content_html, required: true, rows: 14, hint: 'Headings, paragraphs, lists, tables, emphasis, links and images. Scripts, styles and forms are removed when saved: the preview shows what is kept.', error: o.fieldErrors.content_html, more: live })}
</div>
<section aria-labelledby="preview-heading">
<h2 id="preview-heading" class="label">Preview: what will be kept</h2>
<div id="preview" class="content-preview" hx-disable aria-live="polite" tabindex="0" role="region" aria-label="Preview text">${trusted(o.preview)}</div>
</section>
</div>
<p><button type="submit" formaction="${previewPath}" class="secondary outline">Refresh the preview</button></p>
${input({ name: 'file_url', label: 'Content file address (optional)', type: 'url', value: o.values.file_url, maxlength: 2048, hint: 'Your own copy of the text; when empty, the service serves one.', error: o.fieldErrors.file_url })}
${checkbox({ name: 'allow_reconsent', label: 'Allow re-consent on this version', checked: o.values.allow_reconsent, hint: 'When not allowed, a customer who decided on this version cannot change the decision (a withdraw is always accepted).' })}
${o.partners ? partnerFieldset(o.partners, o.fieldErrors.partners) : ''}
<button type="submit">${o.version ? 'Save draft' : 'Save as draft'}</button>
</form>`;
}

/** The release a new draft starts from, as its page says it. */
export interface StartingPoint {
  version: number | null;
  tag: string;
  rejected: boolean;
  /** Its other locales, carried over into the draft when it is saved. */
  carried: string[];
}

export function newVersionPage(
  form: Html,
  template: TemplateModel,
  start?: StartingPoint | undefined,
): Html {
  const from = start
    ? start.rejected
      ? html`the rejected tag <span class="mono">${start.tag}</span> (its tag is free to use again)`
      : html`version ${start.version} (tag <span class="mono">${start.tag}</span>)`
    : undefined;
  return html`<nav aria-label="breadcrumb"><ul><li><a href="${basePath}/templates">Templates</a></li><li><a href="${templatePath(template.code)}">${template.code}</a></li><li>New draft</li></ul></nav>
<h1>New draft version</h1>
<p>A draft is not seen by the API until it is published.</p>
${
  from
    ? html`<p class="notice" role="note">It starts from ${from}.${
        start && start.carried.length > 0
          ? html` Its other ${start.carried.length === 1 ? 'locale is' : 'locales are'} carried over when you save: ${start.carried.map((l, i) => html`${i === 0 ? '' : ', '}${localeName(l)} <span class="mono">${l}</span>`)}; change ${start.carried.length === 1 ? 'it' : 'them'} in ${start.carried.length === 1 ? 'its tab' : 'their tabs'} once saved.`
          : ''
      }</p>`
    : ''
}
${form}`;
}

export function versionPage(o: {
  template: TemplateModel;
  version: VersionModel;
  form: Html | undefined;
  zone: string;
  steps: VersionReviewRow[];
  edits: VersionEditRow[];
  /** Whether the user may submit a draft for review. */
  maySubmit: boolean;
  /** Its uploaded content file, and the forms to change it. */
  contentFile: Html;
  /** A tab per locale, when it has more than one or may get one. */
  localeTabs: Html | undefined;
  /** Another locale's text (and form), shown instead of the release's own. */
  otherLocale: Html | undefined;
}): Html {
  const { template, version } = o;
  return html`<nav aria-label="breadcrumb"><ul><li><a href="${basePath}/templates">Templates</a></li><li><a href="${templatePath(template.code)}">${template.code}</a></li><li>${version.tag}</li></ul></nav>
<hgroup><h1>${template.name}: tag ${version.tag}</h1><p>${statusBadge(version)} ${version.version === null ? '' : `version ${version.version}`}</p></hgroup>
<dl class="facts">
<dt>Version id</dt><dd class="mono">${version.id}</dd>
<dt>Re-consent</dt><dd>${version.allowReconsent ? 'allowed' : 'not allowed'}</dd>
<dt>Content SHA-256</dt><dd class="mono">${version.contentSha256}</dd>
${version.fileUrl ? html`<dt>Content file</dt><dd class="mono">${version.fileUrl}</dd>` : ''}
<dt>Created</dt><dd>${time(version.createdAt, o.zone)}</dd>
${version.publishedAt ? html`<dt>${version.scheduled ? 'Goes live' : 'Published'}</dt><dd>${time(version.publishedAt, o.zone)} by ${version.publishedBy ?? ''}</dd>` : ''}
</dl>
${reviewLink(template, version, o.maySubmit)}
${o.localeTabs ?? ''}
${
  o.otherLocale
    ? o.otherLocale
    : html`${o.contentFile}
${
  o.form
    ? html`<h2>Edit the draft</h2>${o.form}`
    : html`<h2>Content as customers see it</h2>
<div class="content-preview" lang="${version.locale}" tabindex="0" role="region" aria-label="Content">${trusted(version.contentHtml)}</div>`
}`
}
${timeline(version, o.steps, o.edits, o.zone)}`;
}

/** The way to a version's review page: to submit a draft, or to follow one under review. */
function reviewLink(template: TemplateModel, version: VersionModel, maySubmit: boolean): Html {
  const href = `${basePath}${reviewPath(template.code, version.id)}`;
  if (version.status === 'draft' && maySubmit) {
    return html`<p><a href="${href}" role="button">Submit for review…</a></p>`;
  }
  if (version.status === 'in_review' || version.status === 'reviewed') {
    return html`<p><a href="${href}" role="button">Open the review</a></p>`;
  }
  return html``;
}

/** The partners a draft may list: the tenant's register, and the codes chosen. */
export interface PartnerChoice {
  options: ReadonlyArray<{ code: string; name: string }>;
  chosen: readonly string[];
}

/** One box per partner of the register; the hidden field says the list was part of the form. */
function partnerFieldset(choice: PartnerChoice, error: string | undefined): Html {
  const chosen = new Set(choice.chosen);
  return html`<fieldset aria-describedby="partners-hint">
<legend>Partners this text allows sharing customer data with</legend>
<input type="hidden" name="partners_shown" value="true">
${
  choice.options.length === 0
    ? html`<p>The register of partners is empty.</p>`
    : choice.options.map(
        (p) =>
          html`<label><input type="checkbox" name="partners" value="${p.code}"${chosen.has(p.code) ? html` checked` : ''}> ${p.name} <span class="mono">${p.code}</span></label>`,
      )
}
${error ? html`<small class="field-error">${error}</small>` : html`<small id="partners-hint">Listed in the API's answers for this version; fixed once it is submitted.</small>`}
</fieldset>`;
}
