/**
 * The script served at `GET /cookies/v1/{scope}/banner.js`: the banner's bundle
 * (`dist/cookies/banner.js`, built by `scripts/build-banner.mjs` from `src/cookies/banner/`) with
 * the system's configuration written in, so that a first page view costs one request.
 */
import { readFileSync } from 'node:fs';
import type { BannerConfig } from './banner-config.js';

/** The identifier the bundle holds once, where the configuration goes. */
const placeholder = '__CONSENTRIX_CONFIG__';

/** Two levels below the package root in both src/ and dist/, so this resolves from either. */
const bundleUrl = new URL('../../dist/cookies/banner.js', import.meta.url);

let bundle: string | undefined;

/** Reads a built bundle; its absence is a build left undone, and says so. */
export function readBundle(url: URL): string {
  try {
    return readFileSync(url, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    throw new Error(
      `The cookie banner's bundle is missing (${url.pathname}): run \`npm run build\`.`,
    );
  }
}

/**
 * JSON as a JavaScript expression inside an HTML-served script: `<` escaped so that no
 * `</script>` or `<!--` in a tenant's text can end or bend a script element the script is ever
 * inlined into, and U+2028/U+2029, which JSON allows in strings but older engines do not allow in
 * a script's string literals.
 */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<\u2028\u2029]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** The banner script for one system's published configuration. */
export function bannerScript(config: BannerConfig): string {
  bundle ??= readBundle(bundleUrl);
  const json = scriptJson(config);
  // A function, not a replacement string: in one, `$&` or `$'` in a tenant's text would be
  // replaced by parts of the bundle.
  return bundle.replace(placeholder, () => json);
}
