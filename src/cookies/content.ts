import stringify from 'safe-stable-stringify';
import { type Static, Type } from 'typebox';
import { AppError, type ErrorDetail } from '../platform/errors.js';
import { sha256Hex } from '../platform/hashing.js';
import { validate } from '../platform/validation.js';
import { canonicalLocale } from '../templates/index.js';
import { type BannerConfig, type StandardCategory, standardCategories } from './banner-config.js';
import { type ConsentMode, checkRegionRules } from './regions.js';
import { checkVariants } from './variants.js';

/** `necessary`, the standard four, or the tenant's own: lower-case, starting with a letter. */
export const categoryKeyPattern = '^[a-z][a-z0-9_]{0,39}$';

const Texts = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 200 }),
    body: Type.String({ minLength: 1, maxLength: 2000 }),
    accept_all: Type.String({ minLength: 1, maxLength: 60 }),
    reject_all: Type.String({ minLength: 1, maxLength: 60 }),
    preferences: Type.String({ minLength: 1, maxLength: 60 }),
    save: Type.String({ minLength: 1, maxLength: 60 }),
    preferences_title: Type.String({ minLength: 1, maxLength: 200 }),
    gpc_note: Type.String({ minLength: 1, maxLength: 500 }),
    policy_label: Type.String({ minLength: 1, maxLength: 100 }),
    policy_url: Type.Union([
      Type.Literal(''),
      Type.String({ pattern: '^https?://[^\\s<>"]+$', maxLength: 2000 }),
    ]),
    close: Type.String({ minLength: 1, maxLength: 60 }),
    held_content: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
    allow_category: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    settings: Type.Optional(Type.String({ minLength: 1, maxLength: 60 })),
    declaration: Type.Optional(Type.String({ minLength: 1, maxLength: 60 })),
  },
  { additionalProperties: false },
);

/**
 * A cookie of a category, as its declaration lists it (docs/cookie-scans.md, "The cookie
 * declaration"): a name, or a prefix ending in `*` (`_ga_*`); the domain and path it was set with
 * when they are not the page's host and `/` (without a domain the banner tries the page's host
 * and each parent domain); who sets it, for how long, and what for, by locale. The banner removes
 * those of a category the visitor refused or withdrew (never a required one's).
 */
const CookieName = Type.Object(
  {
    name: Type.String({ pattern: '^[A-Za-z0-9_.\\-]{1,200}\\*?$' }),
    domain: Type.Optional(
      Type.String({ pattern: '^\\.?[a-z0-9]([a-z0-9.-]*[a-z0-9])?$', maxLength: 253 }),
    ),
    path: Type.Optional(Type.String({ pattern: '^/[^\\s;,]*$', maxLength: 200 })),
    provider: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    retention: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    purpose: Type.Optional(
      Type.Record(Type.String(), Type.String({ minLength: 1, maxLength: 500 })),
    ),
  },
  { additionalProperties: false },
);

const Category = Type.Object(
  {
    key: Type.String({ pattern: categoryKeyPattern }),
    required: Type.Boolean(),
    /**
     * A tenant's own category only: the standard one whose Consent Mode types, cookie boolean
     * and `dataLayer` key it feeds (a `preferences` category as `functional`).
     */
    maps_to: Type.Optional(
      Type.Union([
        Type.Literal('analytics'),
        Type.Literal('marketing'),
        Type.Literal('functional'),
        Type.Literal('personalization'),
      ]),
    ),
    cookies: Type.Optional(Type.Array(CookieName, { maxItems: 30 })),
    texts: Type.Record(
      Type.String(),
      Type.Object(
        {
          name: Type.String({ minLength: 1, maxLength: 100 }),
          description: Type.String({ maxLength: 1000 }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

const color = Type.String({ pattern: '^#[0-9a-fA-F]{6}$' });

/** `opt-in` asks before anything optional runs; `opt-out` runs it until the visitor says no. */
const Mode = Type.Enum(['opt-in', 'opt-out']);

/** A rule by region (regions.ts): the codes it covers and its mode. */
const RegionRule = Type.Object(
  {
    codes: Type.Array(Type.String({ pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,3})?$' }), {
      minItems: 1,
      maxItems: 100,
    }),
    mode: Mode,
  },
  { additionalProperties: false },
);

const kind = Type.Union([Type.Literal('bar'), Type.Literal('box')]);
const position = Type.Union([
  Type.Literal('bottom'),
  Type.Literal('top'),
  Type.Literal('bottom-left'),
  Type.Literal('bottom-right'),
  Type.Literal('center'),
]);
const settingsButton = Type.Union([Type.Literal('bottom-left'), Type.Literal('bottom-right')]);
/**
 * How the first layer shows *Reject all* (variants.ts): absent, a filled button beside *Accept
 * all*. Another is refused at review in a configuration with variants.
 */
const rejectStyle = Type.Enum(['filled', 'outlined', 'link']);
const rejectLayer = Type.Enum(['first', 'preferences']);

/**
 * An A/B variant (variants.ts): a share of the visitors (1 to 100 per cent) shown other texts
 * (any of the banner's, by locale) or layout.
 */
const Variant = Type.Object(
  {
    key: Type.String({ pattern: '^[a-z][a-z0-9_-]{0,19}$' }),
    weight: Type.Integer({ minimum: 1, maximum: 100 }),
    texts: Type.Optional(Type.Record(Type.String(), Type.Partial(Texts))),
    layout: Type.Optional(
      Type.Object(
        {
          kind: Type.Optional(kind),
          position: Type.Optional(position),
          colors: Type.Optional(
            Type.Object(
              {
                background: Type.Optional(color),
                text: Type.Optional(color),
                accent: Type.Optional(color),
              },
              { additionalProperties: false },
            ),
          ),
          settings_button: Type.Optional(settingsButton),
          reject_style: Type.Optional(rejectStyle),
          reject_layer: Type.Optional(rejectLayer),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

/** What a configuration says, apart from its name and dates: frozen once it leaves draft. */
export const ConfigurationContent = Type.Object(
  {
    default_locale: Type.String({ minLength: 1, maxLength: 35 }),
    lifetime_days: Type.Integer({ minimum: 1, maximum: 730 }),
    /** The default rule: for a visitor no rule of `regions` covers (absent: `opt-in`). */
    mode: Type.Optional(Mode),
    /** Rules by the visitor's region (docs/cookies.md, "Rules by region"). */
    regions: Type.Optional(Type.Array(RegionRule, { maxItems: 20 })),
    categories: Type.Array(Category, { minItems: 1, maxItems: 20 }),
    texts: Type.Record(Type.String(), Texts),
    layout: Type.Object(
      {
        kind,
        position,
        colors: Type.Object(
          { background: color, text: color, accent: color },
          { additionalProperties: false },
        ),
        settings_button: Type.Optional(settingsButton),
        reject_style: Type.Optional(rejectStyle),
        reject_layer: Type.Optional(rejectLayer),
      },
      { additionalProperties: false },
    ),
    /** A/B variants (docs/cookies.md, "A/B tests"), at most 4. */
    variants: Type.Optional(Type.Array(Variant, { maxItems: 4 })),
  },
  { additionalProperties: false },
);
export type ConfigurationContent = Static<typeof ConfigurationContent>;

/** A year, as the issue of a banner's choice is usually kept (12 months). */
export const defaultLifetimeDays = 365;

/**
 * Checks a configuration's content beyond its shape, and puts it in its one form: locales
 * canonical, `necessary` first and required, then the standard categories in their order, then
 * the tenant's own; every locale with every text. `400 1001` naming the field otherwise.
 */
export function checkContent(input: unknown): ConfigurationContent {
  const content = structuredClone(validate(ConfigurationContent, input));
  const details: ErrorDetail[] = [];
  const locale = (tag: string, field: string) => {
    const canonical = canonicalLocale(tag);
    if (!canonical)
      details.push({ field, issue: 'must be a BCP 47 language tag, such as th or en-GB' });
    return canonical ?? tag;
  };
  const texts: ConfigurationContent['texts'] = {};
  for (const [tag, value] of Object.entries(content.texts)) {
    const canonical = locale(tag, `texts.${tag}`);
    if (texts[canonical]) details.push({ field: `texts.${tag}`, issue: 'names a locale twice' });
    texts[canonical] = value;
  }
  const locales = Object.keys(texts);
  if (locales.length === 0)
    details.push({ field: 'texts', issue: 'must have at least one locale' });
  const defaultLocale = locale(content.default_locale, 'default_locale');
  if (locales.length > 0 && !texts[defaultLocale]) {
    details.push({ field: 'default_locale', issue: 'must be one of the locales of texts' });
  }
  const seen = new Set<string>();
  const categories = content.categories.map((category, i) => {
    if (seen.has(category.key)) {
      details.push({ field: `categories.${i}.key`, issue: 'names a category twice' });
    }
    seen.add(category.key);
    const byLocale: (typeof category)['texts'] = {};
    for (const [tag, value] of Object.entries(category.texts)) {
      byLocale[locale(tag, `categories.${i}.texts.${tag}`)] = value;
    }
    for (const wanted of locales) {
      if (!byLocale[wanted]) {
        details.push({ field: `categories.${i}.texts`, issue: `has no texts for ${wanted}` });
      }
    }
    const standard = category.key === 'necessary' || isStandard(category.key);
    if (category.maps_to !== undefined && standard) {
      details.push({
        field: `categories.${i}.maps_to`,
        issue: 'is for your own categories only: a standard one maps onto itself',
      });
    }
    const cookies = category.cookies?.map((cookie, at) => {
      if (!cookie.purpose) return cookie;
      const purpose: Record<string, string> = {};
      for (const [tag, text] of Object.entries(cookie.purpose)) {
        const field = `categories.${i}.cookies.${at}.purpose`;
        const canonical = locale(tag, field);
        if (!texts[canonical]) details.push({ field, issue: `has ${tag}, which texts has not` });
        purpose[canonical] = text;
      }
      return { ...cookie, purpose };
    });
    for (const extra of Object.keys(byLocale).filter((l) => !texts[l])) {
      details.push({ field: `categories.${i}.texts`, issue: `has ${extra}, which texts has not` });
    }
    return {
      ...category,
      ...(cookies === undefined ? {} : { cookies }),
      required: category.key === 'necessary' || category.required,
      texts: byLocale,
    };
  });
  const regions = content.regions && checkRegionRules(content.regions, details);
  const variants = content.variants?.map((variant, i) =>
    variant.texts
      ? {
          ...variant,
          texts: Object.fromEntries(
            Object.entries(variant.texts).map(([tag, value]) => [
              locale(tag, `variants.${i}.texts.${tag}`),
              value,
            ]),
          ),
        }
      : variant,
  );
  checkVariants({ ...content, texts, ...(variants ? { variants } : {}) }, details);
  if (!seen.has('necessary')) {
    details.push({ field: 'categories', issue: 'must include necessary' });
  }
  if (details.length > 0) throw new AppError('invalidRequest', { details });
  return {
    ...content,
    ...(regions === undefined ? {} : { regions }),
    ...(variants === undefined ? {} : { variants }),
    default_locale: defaultLocale,
    texts,
    categories: categories.sort((a, b) => categoryRank(a.key) - categoryRank(b.key)),
  };
}

function isStandard(key: string): boolean {
  return standardCategories.includes(key as StandardCategory);
}

/** `necessary`, then the standard four in their order, then the tenant's own as given. */
function categoryRank(key: string): number {
  if (key === 'necessary') return 0;
  const standard = standardCategories.indexOf(key as StandardCategory);
  return standard >= 0 ? 1 + standard : 1 + standardCategories.length;
}

/** Hex SHA-256 of the content's canonical JSON: what a choice's leaf says the visitor saw. */
export function contentSha256(content: ConfigurationContent): string {
  return sha256Hex(stringify(content) ?? '');
}

/**
 * What a stored choice must match: the categories, which are required, and what an own category
 * maps onto. A text, a colour, the lifetime or the cookies to remove changes nothing a visitor
 * decided, so it does not ask them again; a category added, removed, made (not) required or
 * mapped elsewhere (a grant of it would then allow other trackers) does. The first 16 hex digits
 * of a SHA-256; a category with no mapping is `[key, required]`, as before mappings existed, so
 * no published fingerprint changed with them.
 */
export function fingerprintOf(content: ConfigurationContent): string {
  const material = content.categories
    .map((c) => (c.maps_to ? [c.key, c.required, c.maps_to] : [c.key, c.required]))
    .sort();
  return sha256Hex(JSON.stringify(material)).slice(0, 16);
}

/** The banner's view of a content, with where the service is and what the request said. */
export function bannerConfig(
  content: ConfigurationContent,
  details: Pick<BannerConfig, 'scope' | 'decisions_url' | 'configuration' | 'gpc'> &
    Partial<Pick<BannerConfig, 'declaration_url'>> & { mode?: ConsentMode },
): BannerConfig {
  // The declaration is fetched only where there is one to show.
  const { declaration_url: url, mode, ...rest } = details;
  const declares = content.categories.some((c) => (c.cookies ?? []).length > 0);
  return {
    ...rest,
    ...(url && declares ? { declaration_url: url } : {}),
    // Opt-in is the banner's own way: only the other is written in.
    ...(mode === 'opt-out' ? { mode } : {}),
    lifetime_days: content.lifetime_days,
    default_locale: content.default_locale,
    // What the banner removes: a refusable category's cookies, by name, domain and path; the
    // rest of the declaration is fetched when the preferences open (`declaration.json`).
    categories: content.categories.map(({ cookies, ...category }) => {
      const removed =
        category.required || category.key === 'necessary'
          ? []
          : (cookies ?? []).map(({ name, domain, path }) => ({
              name,
              ...(domain === undefined ? {} : { domain }),
              ...(path === undefined ? {} : { path }),
            }));
      return removed.length > 0 ? { ...category, cookies: removed } : category;
    }),
    texts: content.texts,
    layout: content.layout,
    ...(content.variants && content.variants.length > 0 ? { variants: content.variants } : {}),
  };
}
