import { AppError } from '../platform/errors.js';
import { canonicalLocale } from '../templates/index.js';
import { type BannerCategory, standardCategories } from './banner-config.js';
import type { ConfigurationContent } from './content.js';
import { defaultContent } from './defaults.js';

/**
 * Edits of a configuration's content that start texts of their own: a locale added, a category
 * added. What they start from is what a new configuration starts from (`defaultContent`) where
 * the locale's language has built-in texts, and otherwise the configuration's own default
 * locale, so that every locale has every text and the draft saves as it is.
 */

/** The built-in texts of a locale's language (`en-GB` has `en`'s), if there are any. */
function builtIn<T>(texts: Record<string, T>, locale: string): T | undefined {
  return texts[locale] ?? texts[locale.split('-')[0] ?? ''];
}

/**
 * The content with a locale added, its texts and its categories' names started from the built-in
 * ones or copied from the default locale. `400 1001` (field `locale`) when the tag is none; `409
 * 1005` when the configuration has it already: adding never replaces a text.
 */
export function withLocale(content: ConfigurationContent, tag: string): ConfigurationContent {
  const locale = canonicalLocale(tag.trim());
  if (!locale) {
    throw new AppError('invalidRequest', {
      details: [{ field: 'locale', issue: 'must be a BCP 47 language tag, such as th or en-GB' }],
    });
  }
  if (content.texts[locale]) {
    throw new AppError('conflict', {
      message: `This configuration already has ${locale} texts: change them in the form.`,
    });
  }
  const defaults = defaultContent(content.categories.map((c) => c.key));
  const fallback = content.default_locale;
  const builtInKeys = new Set<string>(['necessary', ...standardCategories]);
  const bannerTexts = builtIn(defaults.texts, locale) ?? content.texts[fallback];
  return {
    ...content,
    texts: { ...content.texts, ...(bannerTexts ? { [locale]: structuredClone(bannerTexts) } : {}) },
    categories: content.categories.map((category) => {
      // The tenant's own categories keep the names the tenant gave them.
      const made = builtInKeys.has(category.key)
        ? defaults.categories.find((c) => c.key === category.key)
        : undefined;
      const texts = (made && builtIn(made.texts, locale)) ??
        category.texts[fallback] ?? { name: category.key, description: '' };
      return { ...category, texts: { ...category.texts, [locale]: structuredClone(texts) } };
    }),
  };
}

/**
 * The content without a locale. `400 1001` (field `locale`) for the default locale, which the
 * banner falls back to: choose another default first.
 */
export function withoutLocale(content: ConfigurationContent, tag: string): ConfigurationContent {
  const locale = canonicalLocale(tag) ?? tag;
  if (!content.texts[locale]) {
    throw new AppError('notFound', { message: `This configuration has no ${locale} texts.` });
  }
  if (locale === content.default_locale) {
    throw new AppError('invalidRequest', {
      details: [
        {
          field: 'locale',
          issue: 'is the default locale: choose another default locale before removing it',
        },
      ],
    });
  }
  const { [locale]: _removed, ...texts } = content.texts;
  return {
    ...content,
    texts,
    categories: content.categories.map((category) => {
      const { [locale]: _gone, ...kept } = category.texts;
      return { ...category, texts: kept };
    }),
  };
}

/**
 * A category to add to the content, with texts in each of its locales: a standard category's
 * built-in name and description where the locale's language has them, otherwise its key as its
 * name, to be changed in the form.
 */
export function newCategory(
  content: ConfigurationContent,
  key: string,
  required: boolean,
): BannerCategory {
  const made = defaultContent([key]).categories.find((c) => c.key === key);
  const texts: BannerCategory['texts'] = {};
  for (const locale of Object.keys(content.texts)) {
    texts[locale] = structuredClone(
      (made && builtIn(made.texts, locale)) ?? { name: key, description: '' },
    );
  }
  return { key, required, texts };
}
