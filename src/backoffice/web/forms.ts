import { AppError } from '../../platform/errors.js';
import { type Html, html } from './html.js';

/** Messages per field name, shown next to the field. */
export type FieldErrors = Record<string, string>;

/** Why a form was refused: messages next to fields, and the rest above the form. */
export interface Refusal {
  fields: FieldErrors;
  form: string[];
}

/** A form shown for the first time: nothing refused. */
export const noRefusal: Refusal = Object.freeze({ fields: {}, form: [] }) as Refusal;

interface FieldOptions {
  name: string;
  label: string;
  value?: string | undefined;
  error?: string | undefined;
  /** Help shown under the field (and read by screen readers with it). */
  hint?: string | undefined;
  required?: boolean;
  autocomplete?: string;
  maxlength?: number;
  pattern?: string;
}

function describedBy(o: FieldOptions): { ids: string; after: Html } {
  const ids: string[] = [];
  let after = html``;
  if (o.error) {
    ids.push(`${o.name}-error`);
    after = html`${after}<small id="${o.name}-error" class="field-error">${o.error}</small>`;
  } else if (o.hint) {
    ids.push(`${o.name}-hint`);
    after = html`${after}<small id="${o.name}-hint">${o.hint}</small>`;
  }
  return { ids: ids.join(' '), after };
}

function commonAttributes(o: FieldOptions, ids: string): Html {
  return html` id="${o.name}" name="${o.name}"${o.required ? html` required` : ''}${o.error ? html` aria-invalid="true"` : ''}${ids ? html` aria-describedby="${ids}"` : ''}${o.autocomplete ? html` autocomplete="${o.autocomplete}"` : ''}${o.maxlength ? html` maxlength="${o.maxlength}"` : ''}${o.pattern ? html` pattern="${o.pattern}"` : ''}`;
}

export function input(
  o: FieldOptions & { type?: 'text' | 'email' | 'password' | 'date' | 'url' | 'search' },
): Html {
  const { ids, after } = describedBy(o);
  const value = o.type === 'password' ? '' : (o.value ?? '');
  return html`<label for="${o.name}">${o.label}</label>
<input type="${o.type ?? 'text'}"${commonAttributes(o, ids)} value="${value}">
${after}`;
}

export function textarea(
  o: FieldOptions & {
    rows?: number /** More attributes (htmx's, for a live preview). */;
    more?: Html;
  },
): Html {
  const { ids, after } = describedBy(o);
  return html`<label for="${o.name}">${o.label}</label>
<textarea${commonAttributes(o, ids)} rows="${o.rows ?? 12}"${o.more ?? ''}>${o.value ?? ''}</textarea>
${after}`;
}

export function checkbox(o: {
  name: string;
  label: string;
  checked: boolean;
  hint?: string;
}): Html {
  return html`<label for="${o.name}"><input type="checkbox" id="${o.name}" name="${o.name}" value="true"${o.checked ? html` checked` : ''}${o.hint ? html` aria-describedby="${o.name}-hint"` : ''}> ${o.label}</label>
${o.hint ? html`<small id="${o.name}-hint">${o.hint}</small>` : ''}`;
}

export function select(o: {
  name: string;
  label: string;
  value: string;
  options: ReadonlyArray<readonly [value: string, label: string]>;
}): Html {
  return html`<label for="${o.name}">${o.label}</label>
<select id="${o.name}" name="${o.name}">
${o.options.map(([value, label]) => html`<option value="${value}"${value === o.value ? html` selected` : ''}>${label}</option>`)}
</select>`;
}

export function csrfField(token: string): Html {
  return html`<input type="hidden" name="_csrf" value="${token}">`;
}

/** Problems that belong to no one field, read out when the page loads. */
export function formErrors(messages: readonly string[]): Html {
  if (messages.length === 0) return html``;
  return html`<div class="form-errors" role="alert"><p><strong>Please correct the following:</strong></p><ul>${messages.map((m) => html`<li>${m}</li>`)}</ul></div>`;
}

/**
 * A service's refusal as form messages: validation details go to their fields (in the words of
 * `messages`, which say what a valid value looks like), anything else to the form. Returns
 * undefined for an error that is not a refusal of the input (it is rethrown by the caller).
 */
export function refusalOf(error: unknown, messages: Record<string, string>): Refusal | undefined {
  if (!(error instanceof AppError) || (error.status !== 400 && error.status !== 409)) {
    return undefined;
  }
  const fields: FieldErrors = {};
  const form: string[] = [];
  for (const detail of error.details ?? []) {
    const name = detail.field.split('.')[0] ?? '';
    const message = messages[name];
    if (message) fields[name] = message;
    else form.push(`${detail.field}: ${detail.issue}`);
  }
  if (!error.details?.length) form.push(error.message);
  return { fields, form };
}

/** A urlencoded form's field as one string ('' when absent; the first when repeated). */
export function fieldOf(body: unknown, name: string): string {
  if (body === null || typeof body !== 'object') return '';
  const value = (body as Record<string, unknown>)[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first : '';
}

/** A query-string parameter as one string ('' when absent). */
export const queryOf = fieldOf;
