import { type ConfigurationContent, standardCategories } from '../../cookies/index.js';
import { localeName } from '../templates/review-views.js';
import { csrfField, type FieldErrors, formErrors, input, select, textarea } from '../web/forms.js';
import { type Html, html } from '../web/html.js';
import { basePath } from '../web/layout.js';
import {
  categoryField,
  cookiesField,
  mapsToChoices,
  ownCategories,
  refusable,
  textField,
  textFields,
} from './editor-form.js';
import { configurationPath } from './paths.js';

export interface EditorModel {
  id: string;
  name: string;
  /** The draft as stored: its locales and categories make the form's fields. */
  stored: ConfigurationContent;
  values: Readonly<Record<string, string>>;
  errors: string[];
  fieldErrors: FieldErrors;
  /** Why adding or removing a locale was refused. */
  localeError?: string | undefined;
  localeValue?: string | undefined;
  csrfToken: string;
}

const categoryNames: Record<string, string> = {
  necessary: 'Necessary',
  analytics: 'Analytics',
  marketing: 'Marketing',
  functional: 'Functional',
  personalization: 'Personalization',
};

const positions = [
  ['bottom', 'Bottom'],
  ['top', 'Top'],
  ['bottom-left', 'Bottom left'],
  ['bottom-right', 'Bottom right'],
  ['center', 'Centre'],
] as const;

/** A field's message under it, for the fields the form helpers do not draw. */
function fieldError(errors: FieldErrors, name: string): Html {
  return errors[name]
    ? html`<small id="${name}-error" class="field-error">${errors[name]}</small>`
    : html``;
}

/** A box for a value `true`, named and labelled as the form reads it. */
function tick(name: string, label: string, checked: boolean): Html {
  return html`<label for="${name}"><input type="checkbox" id="${name}" name="${name}" value="true"${checked ? html` checked` : ''}> ${label}</label>`;
}

function colour(o: EditorModel, name: string, label: string): Html {
  return html`<div><label for="${name}">${label}</label>
<input type="color" id="${name}" name="${name}" value="${o.values[name] ?? '#000000'}"${o.fieldErrors[name] ? html` aria-invalid="true" aria-describedby="${name}-error"` : ''}>
${fieldError(o.fieldErrors, name)}</div>`;
}

/**
 * The draft's editor: its name and dates, its categories (the standard four to tick, the
 * tenant's own with a required flag and the standard one each counts as, one empty row to add
 * one, and the cookies of each a visitor can refuse), its layout, and per locale its
 * texts and each category's name and description; then the forms to add and remove a locale.
 */
export function editorPage(o: EditorModel): Html {
  const v = o.values;
  const locales = Object.keys(o.stored.texts);
  const own = ownCategories(o.stored);
  const path = `${basePath}${configurationPath(o.id)}`;
  return html`<nav aria-label="breadcrumb"><ul><li><a href="${basePath}/cookies">Cookies</a></li><li><a href="${path}">${o.name}</a></li><li>Edit</li></ul></nav>
<h1>Edit the draft: ${o.name}</h1>
${formErrors(o.errors)}
<form method="post" action="${path}/declare-scanned">
${csrfField(o.csrfToken)}
<p><button type="submit" class="secondary">Add the last scan’s cookies</button> <small>Each cookie the system’s newest scan found under one of these categories, with who sets it, for how long and what for, into the lists below.</small></p>
</form>
<form method="post" action="${path}" novalidate>
${csrfField(o.csrfToken)}
<fieldset>
<legend>About</legend>
${input({ name: 'name', label: 'Name', value: v.name, required: true, maxlength: 200, error: o.fieldErrors.name })}
${input({ name: 'effective_date', label: 'Effective date', type: 'date', value: v.effective_date, required: true, error: o.fieldErrors.effective_date })}
${input({ name: 'lifetime_days', label: 'Lifetime of a choice, in days', value: v.lifetime_days, required: true, maxlength: 3, hint: 'After it the visitor is asked again (1 to 730; a year is usual).', error: o.fieldErrors.lifetime_days })}
${select({ name: 'default_locale', label: 'Default locale', value: v.default_locale ?? '', options: locales.map((l) => [l, `${localeName(l)} (${l})`] as const) })}
</fieldset>
<fieldset>
<legend>Categories</legend>
<p><small>Necessary cookies are always on. A category added here starts with default texts: change them below once saved.</small></p>
${standardCategories.map((key) => tick(`category_${key}`, categoryNames[key] ?? key, v[`category_${key}`] === 'true'))}
<h2 class="label">Your own categories</h2>
${[...own, undefined].map((category, row) => {
  const key = `own_key_${row}`;
  return html`<div class="grid">
<div>${input({ name: key, label: category ? `Key of your category ${row + 1}` : 'Key of a new category (optional)', value: v[key], maxlength: 40, hint: category ? 'Empty it to remove the category.' : 'Lower-case letters, digits and _, such as loyalty.', error: o.fieldErrors[key] })}</div>
<div>${tick(`own_required_${row}`, 'Required: always on', v[`own_required_${row}`] === 'true')}</div>
<div>${select({ name: `own_maps_to_${row}`, label: 'Counts for Google Consent Mode as', value: v[`own_maps_to_${row}`] ?? '', options: [['', 'Itself (no Consent Mode type)'], ...mapsToChoices.map((c) => [c, categoryNames[c] ?? c] as const)] })}</div>
</div>`;
})}
<h2 class="label">Cookies the banner removes</h2>
<p><small>When a visitor refuses or withdraws a category, the banner deletes these cookies from the page's site: one a line, its name (a prefix ends in *, such as _ga*), then its domain (such as .bank.example) and path if it was set with them. The same lines are the cookie declaration the banner's preferences show: after a |, who sets it, how long it lasts and what for, in the default language (such as <span class="mono">_ga* .bank.example | Google | 2 years | Tells visitors apart for statistics</span>). Required categories keep theirs.</small></p>
${o.stored.categories.filter(refusable).map((category) => {
  const name = cookiesField(category.key);
  return textarea({
    name,
    label: `${categoryNames[category.key] ?? category.key}: cookies`,
    value: v[name],
    rows: 2,
    error: o.fieldErrors[name],
  });
})}
</fieldset>
<fieldset>
<legend>Rules by region</legend>
<p><small>Where the visitor is, as the service is told by the proxy in front of it or a location database (see the documentation, “Rules by region”). Opt-in runs nothing optional before the visitor chooses; opt-out runs everything until they say no, and records a browser’s Global Privacy Control as their choice at once.</small></p>
${select({
  name: 'mode',
  label: 'Default rule, for a visitor no rule below covers',
  value: v.mode ?? 'opt-in',
  options: [
    ['opt-in', 'Opt-in: ask first'],
    ['opt-out', 'Opt-out: run until the visitor says no'],
  ],
  error: o.fieldErrors.mode,
})}
${textarea({
  name: 'regions',
  label: 'Rules by region',
  value: v.regions,
  rows: 3,
  hint: 'One rule a line, such as “opt-in: TH EEA GB” or “opt-out: US-CA US-CO”: a country, a US state or other subdivision, EU or EEA, each in one rule only. Empty: the default rule for everyone.',
  error: o.fieldErrors.regions,
})}
</fieldset>
<fieldset>
<legend>Layout</legend>
<div class="grid">
<div>${select({
    name: 'layout_kind',
    label: 'Kind',
    value: v.layout_kind ?? 'bar',
    options: [
      ['bar', 'A bar across the page'],
      ['box', 'A box'],
    ],
  })}</div>
<div>${select({ name: 'layout_position', label: 'Position', value: v.layout_position ?? 'bottom', options: positions })}</div>
<div>${select({
    name: 'settings_button',
    label: 'Settings button, once the visitor has chosen',
    value: v.settings_button ?? '',
    options: [
      ['', 'None'],
      ['bottom-left', 'Bottom left corner'],
      ['bottom-right', 'Bottom right corner'],
    ],
    error: o.fieldErrors.settings_button,
  })}</div>
</div>
<div class="grid">
${colour(o, 'color_background', 'Background colour')}
${colour(o, 'color_text', 'Text colour')}
${colour(o, 'color_accent', 'Accent colour (buttons, links)')}
</div>
</fieldset>
${locales.map(
  (locale) => html`<fieldset lang="${locale}">
<legend>Texts in ${localeName(locale)} <span class="mono">${locale}</span></legend>
${textFields.map(([field, label]) => {
  const name = textField(field, locale);
  const common = {
    name,
    label: `${label} (${locale})`,
    value: v[name],
    error: o.fieldErrors[name],
  };
  return field === 'body' || field === 'gpc_note'
    ? textarea({ ...common, rows: field === 'body' ? 4 : 2 })
    : input({ ...common, ...(field === 'policy_url' ? { type: 'url' as const } : {}) });
})}
${o.stored.categories.map((category) => {
  const name = categoryField('name', category.key, locale);
  const description = categoryField('description', category.key, locale);
  const label = categoryNames[category.key] ?? category.key;
  return html`${input({ name, label: `${label}: name (${locale})`, value: v[name], error: o.fieldErrors[name] })}
${textarea({ name: description, label: `${label}: description (${locale})`, value: v[description], rows: 2, error: o.fieldErrors[description] })}`;
})}
</fieldset>`,
)}
<button type="submit">Save the draft</button>
</form>
<h2>Locales</h2>
<p><small>Save the draft first: adding or removing a locale keeps nothing typed above that was not saved.</small></p>
<form method="post" action="${path}/locales" novalidate>
${csrfField(o.csrfToken)}
${input({ name: 'locale', label: 'Add a locale', value: o.localeValue ?? '', maxlength: 35, hint: 'A BCP 47 tag such as th or en-GB. Its texts start from the built-in ones (English, Thai) or from the default locale.', error: o.localeError })}
<button type="submit" class="secondary">Add the locale</button>
</form>
${locales
  .filter((l) => l !== o.stored.default_locale)
  .map(
    (
      locale,
    ) => html`<form method="post" action="${path}/locales/${encodeURIComponent(locale)}/remove">
${csrfField(o.csrfToken)}
<label for="confirm-${locale}"><input type="checkbox" id="confirm-${locale}" name="confirm" value="true"> Remove the ${localeName(locale)} texts (<span class="mono">${locale}</span>) from this draft</label>
<button type="submit" class="secondary">Remove ${locale}</button>
</form>`,
  )}`;
}
