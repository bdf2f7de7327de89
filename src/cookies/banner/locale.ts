/**
 * The locale of the banner's texts: the page's language first (the banner should speak as the
 * page around it does), then the browser's, each by its exact tag and then by its primary
 * subtag (`pt-BR` finds `pt-br`, then `pt`); else the configuration's default.
 */
export function pickLocale(have: object, fallback: string): string {
  for (const tag of [document.documentElement.lang, ...navigator.languages]) {
    const exact = (tag || '').toLowerCase();
    for (const locale of [exact, exact.split('-')[0] ?? '']) {
      if (locale && Object.hasOwn(have, locale)) return locale;
    }
  }
  return fallback;
}
