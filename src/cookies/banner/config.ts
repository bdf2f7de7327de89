import type { BannerConfig, BannerTexts, CategoryTexts } from '../banner-config.js';

/**
 * The service replaces this identifier, in the built bundle, with the JSON of the system's
 * configuration (`bannerScript` in `../banner-script.ts`): it must stay a bare global that the
 * bundler neither renames nor repeats, so it is named here and nowhere else.
 */
declare const __CONSENTRIX_CONFIG__: BannerConfig;

export const config: BannerConfig = __CONSENTRIX_CONFIG__;

/** The banner's texts in `locale`, else in the default locale. */
export function textsIn(locale: string): BannerTexts {
  return (config.texts[locale] ?? config.texts[config.default_locale]) as BannerTexts;
}

/** A category's name and description in `locale`, else the default locale's, else its key. */
export function wordsOf(key: string, locale: string): CategoryTexts {
  const texts = config.categories.find((c) => c.key === key)?.texts;
  return texts?.[locale] ?? texts?.[config.default_locale] ?? { name: key, description: '' };
}
