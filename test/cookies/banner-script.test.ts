/**
 * How the service writes a configuration into the banner's bundle: as a JavaScript expression
 * that no tenant text can break out of, whatever characters it holds.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bannerScript, readBundle } from '../../src/cookies/banner-script.js';
import { repoRoot } from '../helpers/process.js';
import { englishTexts, shopConfig } from './banner-configs.js';

const bundle = readFileSync(join(repoRoot, 'dist', 'cookies', 'banner.js'), 'utf8');
const [before = '', after = ''] = bundle.split('__CONSENTRIX_CONFIG__');

/** What the script holds where the bundle had the identifier. */
function written(script: string): string {
  expect(script.startsWith(before)).toBe(true);
  expect(script.endsWith(after)).toBe(true);
  return script.slice(before.length, script.length - after.length);
}

describe('bannerScript', () => {
  it("writes a text with $& and $' as it is, not as parts of the bundle", () => {
    const config = shopConfig({ texts: { en: { ...englishTexts, title: "Pay $& save $' now" } } });
    const json = written(bannerScript(config));
    expect(json).toContain(`"title":"Pay $& save $' now"`);
    expect(JSON.parse(json)).toEqual(config);
  });

  it('escapes < and the line and paragraph separators, which parse back to the same text', () => {
    const title = 'a</script><!--b\u2028c\u2029d';
    const config = shopConfig({ texts: { en: { ...englishTexts, title } } });
    const json = written(bannerScript(config));
    expect(json).toContain('"title":"a\\u003c/script>\\u003c!--b\\u2028c\\u2029d"');
    expect(json).not.toMatch(/[<\u2028\u2029]/);
    expect(JSON.parse(json)).toEqual(config);
  });

  it('says to run npm run build when the bundle is missing', () => {
    expect(() => readBundle(new URL('file:///nonexistent/dist/cookies/banner.js'))).toThrow(
      /bundle is missing .*run `npm run build`/,
    );
  });
});
