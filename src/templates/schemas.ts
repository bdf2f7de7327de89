import { type Static, Type } from 'typebox';
import { productCodePattern } from '../products/index.js';

export const templateCodePattern = '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$';
const tagPattern = '^\\d+(\\.\\d+){0,3}$';

export const TemplateCodeParam = Type.String({
  pattern: templateCodePattern,
  description: 'Reference code of a consent template.',
  examples: ['privacy_policy'],
});

/** V of contract section 4: a published template version as every endpoint shows it. */
export const PublishedVersion = Type.Object({
  consent_version_id: Type.String({ format: 'uuid' }),
  template_code: Type.String(),
  version: Type.Integer({ minimum: 1 }),
  tag: Type.String(),
  content_html: Type.String(),
  file_url: Type.String({ format: 'uri' }),
  allow_reconsent: Type.Boolean(),
  published_at: Type.String({ format: 'date-time' }),
  locale: Type.Optional(
    Type.String({
      description:
        'The locale of this variant (BCP 47); present when the request named a locale, by ' +
        '`?locale=` or `Accept-Language`.',
    }),
  ),
  partners: Type.Optional(
    Type.Array(
      Type.Object({
        code: Type.String({ description: "The partner's code, fixed once made." }),
        name: Type.String(),
      }),
      {
        description:
          'The partners this version allows customer data to be shared with, by code; ' +
          'present only when the version lists at least one.',
      },
    ),
  ),
});
export type PublishedVersion = Static<typeof PublishedVersion>;

export const NewTemplate = Type.Object(
  {
    code: Type.String({ pattern: templateCodePattern }),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    /** The code of the product it belongs to; the tenant's first active product when absent. */
    product: Type.Optional(Type.String({ pattern: productCodePattern })),
    /** Its default locale (BCP 47); `en` when absent. */
    locale: Type.Optional(Type.String({ maxLength: 35 })),
  },
  { additionalProperties: false },
);
export type NewTemplate = Static<typeof NewTemplate>;

/**
 * What may change of a template once made: its name, its product, its default locale, and its
 * validity period (absent: unchanged; read by `validityMonthsOf`, which says what is allowed).
 */
export const TemplateDetails = Type.Object(
  {
    name: NewTemplate.properties.name,
    product: Type.String({ pattern: productCodePattern }),
    default_locale: Type.String({ minLength: 1, maxLength: 35 }),
    validity_months: Type.Optional(
      Type.Union([Type.Integer(), Type.String({ maxLength: 20 }), Type.Null()]),
    ),
  },
  { additionalProperties: false },
);

/** The operator's own URL of a version's content file. */
const fileUrlField = Type.Optional(
  Type.Union([Type.String({ pattern: '^https?://\\S+$', maxLength: 2048 }), Type.Null()]),
);

export const NewVersion = Type.Object(
  {
    tag: Type.String({ pattern: tagPattern, maxLength: 64 }),
    content_html: Type.String({ minLength: 1, maxLength: 1_000_000 }),
    file_url: fileUrlField,
    allow_reconsent: Type.Optional(Type.Boolean()),
    /** The locale of its content (BCP 47); the template's default locale when absent. */
    locale: Type.Optional(Type.String({ maxLength: 35 })),
  },
  { additionalProperties: false },
);
export type NewVersion = Static<typeof NewVersion>;

/** Another locale's content of a draft release. */
export const NewVariant = Type.Object(
  {
    locale: Type.String({ minLength: 1, maxLength: 35 }),
    content_html: Type.String({ minLength: 1, maxLength: 1_000_000 }),
    file_url: fileUrlField,
  },
  { additionalProperties: false },
);
export type NewVariant = Static<typeof NewVariant>;

export interface TemplateView {
  id: string;
  code: string;
  name: string;
}
