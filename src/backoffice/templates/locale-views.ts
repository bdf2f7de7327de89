import {
  checkbox,
  csrfField,
  type FieldErrors,
  formErrors,
  input,
  textarea,
} from '../web/forms.js';
import { type Html, html, trusted } from '../web/html.js';
import { localeName } from './review-views.js';

/**
 * A release's locales on its page, one tab each (links: each tab is the page with `?locale=`),
 * the release's own locale first; a draft's editors also get "Add a locale".
 */
export function localeTabs(o: {
  path: string;
  locales: readonly string[];
  selected: string;
  mayAdd: boolean;
}): Html {
  const tab = (locale: string, label: Html | string) =>
    html`<li><a href="${o.path}?locale=${encodeURIComponent(locale)}"${locale === o.selected ? html` aria-current="page"` : ''}>${label}</a></li>`;
  return html`<nav aria-label="Locales" class="locale-tabs"><ul>
${o.locales.map((l) => tab(l, html`${localeName(l)} <span class="mono">${l}</span>`))}
${o.mayAdd ? tab('new', 'Add a locale') : ''}
</ul></nav>`;
}

/** Another locale's text of a draft release: a new one (`locale` asked), or one it has. */
export function variantForm(o: {
  action: string;
  csrfToken: string;
  /** The locale edited; undefined for a new one. */
  locale: string | undefined;
  values: { locale: string; content_html: string; file_url: string };
  errors: string[];
  fieldErrors: FieldErrors;
}): Html {
  return html`${formErrors(o.errors)}
<form method="post" action="${o.action}" novalidate>
${csrfField(o.csrfToken)}
${
  o.locale === undefined
    ? html`<input type="hidden" name="adding" value="true">${input({
        name: 'locale',
        label: 'Locale',
        value: o.values.locale,
        required: true,
        maxlength: 35,
        hint: 'A BCP 47 language tag, such as th, en-GB or zh-Hant.',
        error: o.fieldErrors.locale,
      })}`
    : html`<input type="hidden" name="locale" value="${o.locale}">`
}
${textarea({ name: 'content_html', label: `Content (HTML)${o.locale ? `, ${localeName(o.locale)}` : ''}`, value: o.values.content_html, required: true, rows: 14, hint: 'The same text as the release, in this language. Scripts, styles and forms are removed when saved.', error: o.fieldErrors.content_html })}
${input({ name: 'file_url', label: 'Content file address (optional)', type: 'url', value: o.values.file_url, maxlength: 2048, hint: 'Your own copy of this text; when empty, the service serves one.', error: o.fieldErrors.file_url })}
<button type="submit">Save this locale</button>
</form>`;
}

/** One locale's text as customers will see it, and, on a draft, the way to drop it. */
export function variantView(o: {
  locale: string;
  contentHtml: string;
  contentSha256: string;
  removeAction: string | undefined;
  csrfToken: string;
}): Html {
  return html`<dl class="facts"><dt>Content SHA-256 (${o.locale})</dt><dd class="mono">${o.contentSha256}</dd></dl>
<h2>Content as customers see it</h2>
<div class="content-preview" lang="${o.locale}" tabindex="0" role="region" aria-label="Content">${trusted(o.contentHtml)}</div>
${
  o.removeAction
    ? html`<form method="post" action="${o.removeAction}">${csrfField(o.csrfToken)}
${checkbox({ name: 'confirm', label: `Yes, remove the ${localeName(o.locale)} text from this draft`, checked: false })}
<button type="submit" class="secondary">Remove this locale</button></form>`
    : ''
}`;
}
