import { type Static, type TObject, type TSchema, Type } from 'typebox';
import { Value } from 'typebox/value';
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
  o: FieldOptions & { type?: 'text' | 'email' | 'password' | 'date' | 'url' | 'search' | 'number' },
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
  error?: string | undefined;
}): Html {
  const invalid = o.error ? html` aria-invalid="true" aria-describedby="${o.name}-error"` : html``;
  return html`<label for="${o.name}">${o.label}</label>
<select id="${o.name}" name="${o.name}"${invalid}>
${o.options.map(([value, label]) => html`<option value="${value}"${value === o.value ? html` selected` : ''}>${label}</option>`)}
</select>${o.error ? html`<small id="${o.name}-error" class="field-error">${o.error}</small>` : ''}`;
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

/** A form's text fields as sent (trimmed where the options say), lists left out. */
export type FormInput<T extends TObject> = {
  [K in keyof Static<T> as Static<T>[K] extends readonly unknown[] ? never : K]?: string;
};

/**
 * A form's typed values, or why it was refused; either way what was sent, to show the form
 * again (and to read a field the schema takes as free text, such as a checkbox's `true`).
 */
export type ParsedForm<T extends TObject> =
  | { ok: true; values: Static<T>; input: FormInput<T> }
  | { ok: false; refusal: Refusal; input: FormInput<T> };

export interface FormOptions<T extends TObject> {
  /**
   * One message per field, saying what a valid value looks like; shown next to the field when
   * its value fails the schema. A failing field without a message is named above the form.
   */
  messages: { readonly [K in keyof T['properties']]?: string };
  /** Fields whose surrounding spaces are dropped before validation (names, e-mails). */
  trim?: ReadonlyArray<keyof T['properties'] & string>;
}

/**
 * A urlencoded form body checked against its TypeBox schema, as the API's bodies are: only the
 * schema's fields are read (the form token and unknown fields are left out), a field sent twice
 * counts once unless the schema wants a list, an absent field is empty (an unchecked checkbox is
 * `false`), and numbers and booleans are converted from their text before the check.
 */
export function parseForm<T extends TObject>(
  schema: T,
  body: unknown,
  options: FormOptions<T>,
): ParsedForm<T> {
  const trimmed = new Set<string>(options.trim ?? []);
  const read: Record<string, unknown> = {};
  const input: Record<string, string> = {};
  for (const [name, field] of Object.entries(schema.properties) as [string, TSchema][]) {
    const kind = (field as { type?: unknown }).type;
    if (kind === 'array') {
      read[name] = listOf(body, name);
      continue;
    }
    const text = trimmed.has(name) ? fieldOf(body, name).trim() : fieldOf(body, name);
    input[name] = text;
    read[name] = kind === 'boolean' && text === '' ? false : text;
  }
  const values = Value.Convert(schema, read);
  if (Value.Check(schema, values)) {
    return { ok: true, values: values as Static<T>, input: input as FormInput<T> };
  }
  const fields: FieldErrors = {};
  const form: string[] = [];
  const messages = options.messages as Record<string, string | undefined>;
  for (const error of Value.Errors(schema, values)) {
    const name = error.instancePath.split('/')[1] ?? '';
    const message = messages[name];
    if (message) fields[name] ??= message;
    else if (!form.includes(`${name}: ${error.message}`)) form.push(`${name}: ${error.message}`);
  }
  return { ok: false, refusal: { fields, form }, input: input as FormInput<T> };
}

/** A textarea's entries typed one a line (origins), blank lines left out. */
export function linesOf(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/** A form that asks only to confirm, with its checkbox `confirm`. */
export const ConfirmForm = Type.Object({ confirm: Type.String() });

/** Whether the confirming checkbox was ticked (it sends `true`). */
export function confirmed(body: unknown): boolean {
  return parseForm(ConfirmForm, body, { messages: {} }).input.confirm === 'true';
}

function listOf(body: unknown, name: string): string[] {
  if (body === null || typeof body !== 'object') return [];
  const value = (body as Record<string, unknown>)[name];
  const all = Array.isArray(value) ? value : [value];
  return all.filter((v): v is string => typeof v === 'string');
}

/**
 * A urlencoded field as one string ('' when absent; the first when repeated). Forms are read
 * through their schema (`parseForm`), query strings with `queryOf`.
 */
function fieldOf(body: unknown, name: string): string {
  if (body === null || typeof body !== 'object') return '';
  const value = (body as Record<string, unknown>)[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first : '';
}

/** A query-string parameter as one string ('' when absent). */
export const queryOf = fieldOf;
