/**
 * The locale of the banner's texts: the one the site pins on the script tag (`data-locale`)
 * first, then the page's language (the banner should speak as the page around it does), then
 * the browser's, each by its exact tag and then by its primary subtag (`pt-BR` finds `pt-br`,
 * then `pt`); else the configuration's default. A pinned locale the configuration has no texts
 * in is passed over.
 */
export function pickLocale(have: object, fallback: string, pinned = ''): string {
  for (const tag of [pinned, document.documentElement.lang, ...navigator.languages]) {
    const exact = (tag || '').toLowerCase();
    for (const locale of [exact, exact.split('-')[0] ?? '']) {
      if (locale && Object.hasOwn(have, locale)) return locale;
    }
  }
  return fallback;
}
