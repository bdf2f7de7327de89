/**
 * The served banner script stays small, since it is on the critical path of a site's every first
 * page view, and runs under a strict CSP (no `eval`, no `new Function`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { bannerScript } from '../../src/cookies/banner-script.js';
import { repoRoot } from '../helpers/process.js';
import { largestConfig, shopConfig } from './banner-configs.js';

describe('the served banner script', () => {
  const script = bannerScript(shopConfig());

  it('is at most 10 KB gzipped, styles included, for the largest fixture configuration in Thai', () => {
    const largest = largestConfig();
    expect(largest.default_locale).toBe('th');
    expect(Object.keys(largest.texts).sort()).toEqual(['en', 'th']);
    expect(largest.categories).toHaveLength(7);
    expect(largest.layout.settings_button).toBe('bottom-right');
    const served = bannerScript(largest);
    // The styles travel in the script (a constructed stylesheet): nothing else is fetched.
    expect(served).toContain('.settings.bottom-right{');
    expect(gzipSync(served).length).toBeLessThanOrEqual(10 * 1024);
  });

  it('is at most 10 KB gzipped with one language, five categories and one of its own', () => {
    expect(shopConfig().categories).toHaveLength(6);
    expect(gzipSync(script).length).toBeLessThanOrEqual(10 * 1024);
  });

  it('evaluates no string as code', () => {
    expect(script).not.toMatch(/\beval\s*\(/);
    expect(script).not.toMatch(/new\s+Function\b/);
    expect(script).not.toMatch(/\bFunction\s*\(/);
  });

  it('carries the configuration in place of the one identifier the bundle holds', () => {
    const bundle = readFileSync(join(repoRoot, 'dist', 'cookies', 'banner.js'), 'utf8');
    expect(bundle.split('__CONSENTRIX_CONFIG__')).toHaveLength(2);
    expect(script).not.toContain('__CONSENTRIX_CONFIG__');
    expect(script).toContain('"fingerprint":"f1a9c2"');
  });
});
