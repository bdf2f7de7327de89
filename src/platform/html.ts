import escapeHtml from 'escape-html';

/**
 * Markup that is safe to send: made by the `html` tag (every interpolated value escaped) or
 * declared trusted on purpose (`trusted`). Pages are built only from these.
 */
export class Html {
  constructor(readonly text: string) {}

  toString(): string {
    return this.text;
  }
}

/** What a page may interpolate; `null`, `undefined` and `false` render as nothing. */
export type HtmlValue = Html | string | number | boolean | null | undefined | readonly HtmlValue[];

/**
 * Tagged template for pages: every `${value}` is HTML-escaped (`& < > " '`) unless it is already
 * `Html`, so text from the store or the request can never become markup. Attribute values must
 * be quoted in the template.
 *
 * @example html`<p class="note">${userText}</p>`
 */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let text = strings[0] ?? '';
  values.forEach((value, index) => {
    text += render(value) + (strings[index + 1] ?? '');
  });
  return new Html(text);
}

function render(value: HtmlValue): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/**
 * Markup the service made safe itself: consent content (sanitized when it was saved) and SVG
 * built from numbers. Never for text from a request.
 */
export function trusted(markup: string): Html {
  return new Html(markup);
}

/** A path segment for a link (a template code, an id): percent-encoded, then escaped by `html`. */
export function segment(value: string): string {
  return encodeURIComponent(value);
}
