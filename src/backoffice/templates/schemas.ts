import { Type } from 'typebox';
import { NewTemplate, NewVersion } from '../../templates/index.js';
import type { FormOptions } from '../web/forms.js';

/**
 * The new-template form is checked with the schema the templates service checks, but for the
 * product, which the form sends empty when the tenant has none yet (the service then makes one).
 */
export const NewTemplateForm = Type.Object({
  code: NewTemplate.properties.code,
  name: NewTemplate.properties.name,
  description: NewTemplate.properties.description,
  product: Type.String(),
  /** Empty: `en`. */
  locale: Type.String({ maxLength: 35 }),
});

export const newTemplateFormOptions: FormOptions<typeof NewTemplateForm> = {
  messages: {
    code: 'Letters, digits, "_", "." and "-", starting with a letter or digit; at most 64.',
    name: 'A name of 1 to 200 characters.',
    description: 'At most 2,000 characters.',
    product: 'Choose an active product of the list.',
    locale: 'A BCP 47 language tag, such as en, th or en-GB.',
  },
  trim: ['code', 'name', 'description', 'product', 'locale'],
};

/**
 * A template's name, product, default locale and validity period (months; empty: none); the
 * service checks them.
 */
export const TemplateDetailsForm = Type.Object({
  name: Type.String(),
  product: Type.String(),
  default_locale: Type.String(),
  validity_months: Type.String(),
});

export const templateDetailsFormOptions: FormOptions<typeof TemplateDetailsForm> = {
  messages: {},
  trim: ['name', 'product', 'default_locale', 'validity_months'],
};

/** The sensitive data a template covers: a box per category of PDPA section 26. */
export const SensitiveDataForm = Type.Object({ data_categories: Type.Array(Type.String()) });

export const sensitiveDataFormOptions: FormOptions<typeof SensitiveDataForm> = { messages: {} };

/** Who may decide for whom: who must act for each basis, empty for none (PDPA section 20). */
export const RepresentationForm = Type.Object({
  'under-10': Type.String(),
  '10-19': Type.String(),
  adult: Type.String(),
  'court-order': Type.String(),
});

export const representationFormOptions: FormOptions<typeof RepresentationForm> = { messages: {} };

/**
 * A version's form: the service's fields, with an empty content file address meaning none. The
 * re-consent checkbox is read as checked only when it sends `true`.
 */
export const VersionForm = Type.Object({
  tag: NewVersion.properties.tag,
  content_html: NewVersion.properties.content_html,
  file_url: Type.Union([
    Type.Literal(''),
    Type.String({ pattern: '^https?://\\S+$', maxLength: 2048 }),
  ]),
  allow_reconsent: Type.String(),
  /** A new draft's starting release (hidden): its other locales are carried over. */
  from_release: Type.String(),
});

export const versionFormOptions: FormOptions<typeof VersionForm> = {
  messages: {
    tag: 'A dotted number such as 1.0 or 2.1.3 (at most four parts), not used before in this template.',
    content_html: 'The content is required, at most 1,000,000 characters.',
    file_url: 'An address starting with http:// or https://, or nothing.',
  },
  trim: ['tag', 'file_url'],
};

/**
 * The version form sent to its preview, with the id of the draft it edits (empty on a new one);
 * nothing is refused there: the preview shows what saving would keep.
 */
export const PreviewForm = Type.Object({
  tag: Type.String(),
  content_html: Type.String(),
  file_url: Type.String(),
  allow_reconsent: Type.String(),
  from_release: Type.String(),
  version_id: Type.String(),
});

export const previewFormOptions: FormOptions<typeof PreviewForm> = {
  messages: {},
  trim: ['tag', 'file_url'],
};

/** Another locale's text of a draft release; the service checks it. */
export const LocaleForm = Type.Object({
  locale: Type.String(),
  /** `true` from the "Add a locale" form: a locale the draft has is then refused. */
  adding: Type.String(),
  content_html: Type.String(),
  file_url: Type.String(),
});

export const localeFormOptions: FormOptions<typeof LocaleForm> = {
  messages: {
    locale: 'Give a BCP 47 language tag, such as th, en-GB or zh-Hant.',
    content_html: 'Write the text customers will see: it must keep something readable.',
    file_url: 'Give an address starting with http:// or https://, or leave it empty.',
  },
  trim: ['locale', 'file_url'],
};

/**
 * A step of review: its comment (the service checks it), the go-live time typed on approval (in
 * the user's zone) or the ticked "Publish at once", and the confirmation of dropping locales
 * (`true`).
 */
export const ReviewStepForm = Type.Object({
  comment: Type.String(),
  effective_at: Type.String(),
  /** `true`: publish at once; an empty go-live time alone publishes nothing. */
  publish_now: Type.String(),
  drop_locales: Type.String(),
});

export const reviewStepFormOptions: FormOptions<typeof ReviewStepForm> = {
  messages: {},
  trim: ['effective_at'],
};
