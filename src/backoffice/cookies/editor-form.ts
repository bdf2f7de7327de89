import { type TObject, type TSchema, Type } from 'typebox';
import {
  type ConfigurationContent,
  categoryKeyPattern,
  newCategory,
  standardCategories,
} from '../../cookies/index.js';
import type { ErrorDetail } from '../../platform/errors.js';
import type { FieldErrors } from '../web/forms.js';

/**
 * The draft's editor: one form for the whole content of a draft, its fields named after what
 * they edit (`title__en`, `name__analytics__th`). Its fields follow the draft as stored (its
 * locales, its own categories and one empty row for a new one), so the schema is made for each
 * draft; the content's own rules are the service's (`checkContent`), whose refusals are put back
 * next to the fields here.
 */

/** The banner's texts, in the form's order, with their labels and what a valid one is. */
export const textFields = [
  ['title', 'Title', '1 to 200 characters.'],
  ['body', 'Text', '1 to 2,000 characters.'],
  ['accept_all', 'Button: accept all', '1 to 60 characters.'],
  ['reject_all', 'Button: reject all', '1 to 60 characters.'],
  ['preferences', 'Button: preferences', '1 to 60 characters.'],
  ['save', 'Button: save my choices', '1 to 60 characters.'],
  ['close', 'Button: close the preferences', '1 to 60 characters.'],
  ['preferences_title', 'Heading of the preferences', '1 to 200 characters.'],
  ['policy_label', 'Cookie policy: link text', '1 to 100 characters.'],
  ['policy_url', 'Cookie policy: address', 'An http:// or https:// address, or nothing.'],
  ['gpc_note', 'Note when the browser sends Global Privacy Control', '1 to 500 characters.'],
  [
    'held_content',
    'Held embed: what its placeholder says',
    'At most 300 characters; {category} stands for the category’s name. Empty: the category’s description.',
  ],
  [
    'allow_category',
    'Held embed: the button that allows its category',
    'At most 100 characters; {category} as above. Empty: a Preferences button.',
  ],
  [
    'settings',
    'Settings button: its label',
    'At most 60 characters. Empty: the preferences button’s label.',
  ],
  [
    'declaration',
    'Preferences: the label of each category’s list of cookies',
    'At most 60 characters. Empty: the preferences list no cookies.',
  ],
] as const;

/** Texts a banner does without: an empty field leaves them out. */
const optionalTexts = new Set<string>([
  'held_content',
  'allow_category',
  'settings',
  'declaration',
]);

export type TextField = (typeof textFields)[number][0];

export const textField = (field: string, locale: string) => `${field}__${locale}`;
/** A category's list of cookies the banner removes when it is refused, one a line. */
export const cookiesField = (key: string) => `cookies__${key}`;

/** What an own category may feed (`maps_to`): its key, or one of the standard ones. */
export const mapsToChoices = ['analytics', 'marketing', 'functional', 'personalization'] as const;

type Category = ConfigurationContent['categories'][number];

/** A category a visitor can refuse: the only ones whose cookies the banner removes. */
export const refusable = (category: Category) => category.key !== 'necessary' && !category.required;

/**
 * A category's cookies as the form shows them: one a line, the name (a prefix ends in `*`), then
 * its domain and path when it has them; after a `|`, what the declaration says of it, when it
 * says anything: its provider, retention and purpose (in `locale`, the default), each after a `|`.
 */
function cookiesText(category: Category, locale: string): string {
  return (category.cookies ?? [])
    .map((c) => {
      const head = [c.name, c.domain ?? '', c.path ?? ''].filter((part) => part !== '').join(' ');
      const declared = [c.provider ?? '', c.retention ?? '', c.purpose?.[locale] ?? ''];
      while (declared.at(-1) === '') declared.pop();
      return [head, ...declared].join(' | ');
    })
    .join('\n');
}

/**
 * The lines of a cookies field as the content's list: a part starting with `/` is the path,
 * any other after the name the domain; after a `|`, the provider, the retention and the purpose
 * in `locale` (the purposes in other locales stay). A line without `|` keeps what the
 * declaration said of that cookie. The service checks each (a line it refuses is named).
 */
function cookiesOfText(
  text: string,
  locale: string,
  stored: Category['cookies'] = [],
): NonNullable<Category['cookies']> {
  return text
    .split(/\r?\n/)
    .map((line) => line.split('|').map((part) => part.trim()))
    .filter(([head]) => head !== undefined && head !== '')
    .map(([head = '', ...declared]) => {
      const [name = '', ...rest] = head.split(/\s+/);
      const path = rest.find((part) => part.startsWith('/'));
      const domain = rest.find((part) => !part.startsWith('/'));
      const where = { name, ...(domain ? { domain } : {}), ...(path ? { path } : {}) };
      // What the declaration says of a cookie kept in the list (who, how long, what for) stays.
      const was = stored.find((c) => c.name === name && c.domain === domain);
      const { name: _n, domain: _d, path: _p, ...kept } = was ?? { name };
      if (declared.length === 0) return { ...where, ...kept };
      const [provider = '', retention = '', ...purposeParts] = declared;
      const purpose = purposeParts.join(' | ');
      const { [locale]: _said, ...otherPurposes } = kept.purpose ?? {};
      const purposes = purpose === '' ? otherPurposes : { ...otherPurposes, [locale]: purpose };
      return {
        ...where,
        ...(provider === '' ? {} : { provider }),
        ...(retention === '' ? {} : { retention }),
        ...(Object.keys(purposes).length > 0 ? { purpose: purposes } : {}),
      };
    });
}

/**
 * A category with the form's list of cookies; one a visitor cannot refuse keeps the cookies its
 * declaration lists (the form removes none of them).
 */
function withCookies(category: Category, text: string | undefined, locale: string): Category {
  const { cookies: _stored, ...rest } = category;
  if (!refusable(category)) return category;
  const cookies =
    text === undefined ? (category.cookies ?? []) : cookiesOfText(text, locale, category.cookies);
  return cookies.length > 0 ? { ...rest, cookies } : rest;
}
export const categoryField = (part: 'name' | 'description', key: string, locale: string) =>
  `${part}__${key}__${locale}`;

/** The tenant's own categories of a content, in their order: the form's rows. */
export function ownCategories(content: ConfigurationContent) {
  const fixed = new Set<string>(['necessary', ...standardCategories]);
  return content.categories.filter((c) => !fixed.has(c.key));
}

const positions = ['bottom', 'top', 'bottom-left', 'bottom-right', 'center'] as const;
const color = Type.String({ pattern: '^#[0-9a-fA-F]{6}$' });

/** The editor's schema for a draft's content as stored. */
export function editorSchema(content: ConfigurationContent): TObject<Record<string, TSchema>> {
  const fields: Record<string, TSchema> = {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    effective_date: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' }),
    default_locale: Type.String(),
    lifetime_days: Type.String({ pattern: '^[0-9]{1,3}$' }),
    layout_kind: Type.Union([Type.Literal('bar'), Type.Literal('box')]),
    layout_position: Type.Union(positions.map((p) => Type.Literal(p))),
    settings_button: Type.Union(['', 'bottom-left', 'bottom-right'].map((p) => Type.Literal(p))),
    mode: Type.Union(['opt-in', 'opt-out'].map((m) => Type.Literal(m))),
    regions: Type.String({ maxLength: 5_000 }),
    color_background: color,
    color_text: color,
    color_accent: color,
  };
  for (const key of standardCategories) fields[`category_${key}`] = Type.String();
  const own = ownCategories(content);
  for (let row = 0; row <= own.length; row += 1) {
    fields[`own_key_${row}`] = Type.String({
      pattern: `^$|${categoryKeyPattern}`,
      maxLength: 40,
    });
    fields[`own_required_${row}`] = Type.String();
    fields[`own_maps_to_${row}`] = Type.Union(
      ['', ...mapsToChoices].map((choice) => Type.Literal(choice)),
    );
  }
  for (const category of content.categories) {
    if (category.key !== 'necessary') {
      fields[cookiesField(category.key)] = Type.String({ maxLength: 10_000 });
    }
  }
  for (const locale of Object.keys(content.texts)) {
    for (const [field] of textFields) fields[textField(field, locale)] = Type.String();
    for (const category of content.categories) {
      fields[categoryField('name', category.key, locale)] = Type.String();
      fields[categoryField('description', category.key, locale)] = Type.String();
    }
  }
  return Type.Object(fields);
}

/** What a valid value of each fixed field is, shown beside it when the form's check fails. */
const fixedMessages: Record<string, string> = {
  name: 'A name of 1 to 200 characters.',
  effective_date: 'A day, such as 2026-07-01.',
  lifetime_days: 'A number of days, 1 to 730.',
  layout_kind: 'A bar or a box.',
  layout_position: 'One of the positions of the list.',
  settings_button: 'None, or one of the corners of the list.',
  mode: 'Opt-in or opt-out.',
  regions:
    'One rule a line: opt-in or opt-out, a colon, then its codes: countries (TH), subdivisions (US-CA), EU or EEA, each in one rule only.',
  color_background: 'A colour such as #ffffff.',
  color_text: 'A colour such as #1f2933.',
  color_accent: 'A colour such as #0b5cad.',
};

/** A rule a line, `opt-out: US-CA US-CO` (docs/cookies.md, "Rules by region"). */
function regionsText(content: ConfigurationContent): string {
  return (content.regions ?? []).map((rule) => `${rule.mode}: ${rule.codes.join(' ')}`).join('\n');
}

/**
 * The lines of the rules' field as rules. A line without a known mode before its colon is kept
 * with what it has there, so that the service's check refuses it and the field says why.
 */
function regionsOfText(text: string): NonNullable<ConfigurationContent['regions']> {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => {
      const colon = line.indexOf(':');
      const mode = (colon < 0 ? '' : line.slice(0, colon).trim().toLowerCase()) as 'opt-in';
      const codes = line
        .slice(colon + 1)
        .split(/[\s,]+/)
        .filter((code) => code !== '');
      return { mode, codes };
    });
}

/** The messages of a draft's form: the fixed fields', and each own category row's key. */
export function editorMessages(content: ConfigurationContent): Record<string, string> {
  const messages: Record<string, string> = { ...fixedMessages };
  for (let row = 0; row <= ownCategories(content).length; row += 1) {
    messages[`own_key_${row}`] =
      'Lower-case letters, digits and _, starting with a letter; at most 40.';
    messages[`own_maps_to_${row}`] = 'Its own, or one of the standard categories of the list.';
  }
  return messages;
}

/**
 * The content the form describes: the stored content with the form's texts, layout and lifetime,
 * the standard categories ticked, and the tenant's own from their rows (a row left empty drops
 * its category; a key changed keeps its texts). A category added starts with default texts
 * (`newCategory`), to be changed once it is saved.
 */
export function contentOfForm(
  stored: ConfigurationContent,
  values: Readonly<Record<string, string>>,
): ConfigurationContent {
  const value = (name: string) => values[name] ?? '';
  const locales = Object.keys(stored.texts);
  const withTexts = (category: Category, textsOf: string) => ({
    ...withCookies(category, values[cookiesField(textsOf)], stored.default_locale),
    texts: Object.fromEntries(
      locales.map((locale) => [
        locale,
        {
          name: value(categoryField('name', textsOf, locale)),
          description: value(categoryField('description', textsOf, locale)),
        },
      ]),
    ),
  });
  const categories: ConfigurationContent['categories'] = [];
  const necessary = stored.categories.find((c) => c.key === 'necessary');
  if (necessary) categories.push(withTexts(necessary, 'necessary'));
  for (const key of standardCategories) {
    if (value(`category_${key}`) !== 'true') continue;
    const kept = stored.categories.find((c) => c.key === key);
    categories.push(kept ? withTexts(kept, key) : newCategory(stored, key, false));
  }
  const own = ownCategories(stored);
  for (let row = 0; row <= own.length; row += 1) {
    const key = value(`own_key_${row}`).trim();
    if (key === '') continue;
    const required = value(`own_required_${row}`) === 'true';
    const mapsTo = value(`own_maps_to_${row}`) as '' | (typeof mapsToChoices)[number];
    const was = own[row];
    const { maps_to: _was, ...category } = was
      ? withTexts({ ...was, required }, was.key)
      : newCategory(stored, key, required);
    categories.push({ ...category, key, ...(mapsTo === '' ? {} : { maps_to: mapsTo }) });
  }
  const texts: ConfigurationContent['texts'] = {};
  for (const locale of locales) {
    const text = (field: TextField) => value(textField(field, locale));
    texts[locale] = {
      title: text('title'),
      body: text('body'),
      accept_all: text('accept_all'),
      reject_all: text('reject_all'),
      preferences: text('preferences'),
      save: text('save'),
      close: text('close'),
      preferences_title: text('preferences_title'),
      policy_label: text('policy_label'),
      policy_url: text('policy_url').trim(),
      gpc_note: text('gpc_note'),
    };
    for (const field of optionalTexts) {
      const given = text(field as TextField);
      if (given.trim() !== '') {
        texts[locale][field as 'held_content' | 'allow_category' | 'settings' | 'declaration'] =
          given;
      }
    }
  }
  const regions = regionsOfText(value('regions'));
  return {
    default_locale: value('default_locale'),
    lifetime_days: Number(value('lifetime_days')),
    // Opt-in with no rules is what a content without either says: it is left as it was.
    ...(value('mode') === 'opt-out' || stored.mode ? { mode: value('mode') as 'opt-in' } : {}),
    ...(regions.length > 0 ? { regions } : {}),
    categories,
    // A/B variants and how Reject all shows are set with the content file; the form keeps them.
    ...(stored.variants ? { variants: stored.variants } : {}),
    texts,
    layout: {
      kind: value('layout_kind') as ConfigurationContent['layout']['kind'],
      position: value('layout_position') as ConfigurationContent['layout']['position'],
      colors: {
        background: value('color_background').toLowerCase(),
        text: value('color_text').toLowerCase(),
        accent: value('color_accent').toLowerCase(),
      },
      ...(value('settings_button') === ''
        ? {}
        : { settings_button: value('settings_button') as 'bottom-left' | 'bottom-right' }),
      ...(stored.layout.reject_style ? { reject_style: stored.layout.reject_style } : {}),
      ...(stored.layout.reject_layer ? { reject_layer: stored.layout.reject_layer } : {}),
    },
  };
}

/**
 * The service's refusal of a content, put next to the fields it names (`texts.en.title` is
 * `title__en`, `categories.2.texts.th.name` the third category's Thai name), the rest above
 * the form.
 */
export function contentRefusal(
  details: readonly ErrorDetail[],
  sent: ConfigurationContent,
): { fields: FieldErrors; form: string[] } {
  const fields: FieldErrors = {};
  const form: string[] = [];
  const limits = Object.fromEntries(textFields.map(([field, , limit]) => [field, limit]));
  for (const { field, issue } of details) {
    const text = /^texts\.([^.]+)\.([a-z_]+)$/.exec(field);
    const category = /^categories\.(\d+)\.texts\.([^.]+)\.(name|description)$/.exec(field);
    const key = category ? sent.categories[Number(category[1])]?.key : undefined;
    if (text?.[1] && text[2]) {
      fields[textField(text[2], text[1])] = limits[text[2]] ?? issue;
    } else if (category?.[2] && key) {
      const part = category[3] as 'name' | 'description';
      fields[categoryField(part, key, category[2])] =
        part === 'name' ? '1 to 100 characters.' : 'At most 1,000 characters.';
    } else if (field === 'lifetime_days' || field.startsWith('layout.') || field === 'name') {
      const name = field.startsWith('layout.colors.')
        ? `color_${field.split('.')[2]}`
        : field.replace('layout.', 'layout_');
      fields[name] = fixedMessages[name] ?? issue;
    } else if (field === 'mode') {
      fields.mode = fixedMessages.mode ?? issue;
    } else if (field === 'regions' || field.startsWith('regions.')) {
      const line = /^regions\.(\d+)/.exec(field)?.[1];
      fields.regions = `${line === undefined ? '' : `Line ${Number(line) + 1}: `}${issue}. ${fixedMessages.regions}`;
    } else if (field === 'effective_date') {
      fields.effective_date = `The effective date ${issue}.`;
    } else if (/^categories\.\d+\.cookies/.test(field)) {
      const at = Number(/^categories\.(\d+)/.exec(field)?.[1]);
      const owner = sent.categories[at]?.key;
      if (owner) {
        fields[cookiesField(owner)] =
          'One cookie a line, at most 30: its name (a prefix ends in *), then its domain and path if it has them; after a |, its provider, retention and purpose, each at most 100 characters (the purpose 500).';
      } else {
        form.push(`${field}: ${issue}`);
      }
    } else if (/^categories\.\d+\.key$/.test(field)) {
      form.push(`A category ${issue}: each key once.`);
    } else {
      form.push(`${field}: ${issue}`);
    }
  }
  return { fields, form };
}

/** The form's fields filled from a draft as stored. */
export function valuesOfDraft(draft: {
  name: string;
  effective_date: string;
  content: ConfigurationContent;
}): Record<string, string> {
  const { content } = draft;
  const values: Record<string, string> = {
    name: draft.name,
    effective_date: draft.effective_date,
    default_locale: content.default_locale,
    lifetime_days: String(content.lifetime_days),
    layout_kind: content.layout.kind,
    layout_position: content.layout.position,
    settings_button: content.layout.settings_button ?? '',
    mode: content.mode ?? 'opt-in',
    regions: regionsText(content),
    color_background: content.layout.colors.background,
    color_text: content.layout.colors.text,
    color_accent: content.layout.colors.accent,
  };
  for (const key of standardCategories) {
    values[`category_${key}`] = String(content.categories.some((c) => c.key === key));
  }
  ownCategories(content).forEach((category, row) => {
    values[`own_key_${row}`] = category.key;
    values[`own_required_${row}`] = String(category.required);
    values[`own_maps_to_${row}`] = category.maps_to ?? '';
  });
  for (const category of content.categories) {
    if (category.key !== 'necessary')
      values[cookiesField(category.key)] = cookiesText(category, content.default_locale);
  }
  for (const [locale, texts] of Object.entries(content.texts)) {
    for (const [field] of textFields) values[textField(field, locale)] = texts[field] ?? '';
    for (const category of content.categories) {
      const own = category.texts[locale];
      values[categoryField('name', category.key, locale)] = own?.name ?? '';
      values[categoryField('description', category.key, locale)] = own?.description ?? '';
    }
  }
  return values;
}
