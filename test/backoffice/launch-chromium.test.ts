import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { launchChromium } from './browser.js';
import { chromiumExecutable } from './chromium.js';

/** The Chromium release that the dev dependency @sparticuz/chromium carries (its version). */
function packagedRelease(): string {
  const entry = createRequire(import.meta.url).resolve('@sparticuz/chromium');
  const manifest = join(dirname(entry), '..', '..', 'package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

describe('which Chromium the browser tests launch', () => {
  let dir: string;
  /** A file standing for an installed browser (chosen, never run). */
  let someBrowser: string;
  let systemBrowser: string;
  const nowhere = '/nowhere/chromium';

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'consent-chromium-'));
    someBrowser = join(dir, 'some-chrome');
    systemBrowser = join(dir, 'system-chromium');
    for (const file of [someBrowser, systemBrowser]) {
      writeFileSync(file, '#!/bin/sh\n');
      chmodSync(file, 0o755);
    }
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('CHROMIUM_PATH wins over the system Chromium', async () => {
    expect(await chromiumExecutable(someBrowser, systemBrowser)).toBe(someBrowser);
  });

  it('without CHROMIUM_PATH, the system Chromium when there is one', async () => {
    expect(await chromiumExecutable(undefined, systemBrowser)).toBe(systemBrowser);
  });

  it('without CHROMIUM_PATH and without a system Chromium, the one the install brings', async () => {
    const path = await chromiumExecutable(undefined, nowhere);
    expect(path).not.toBe(nowhere);
    // Unpacked, whole and runnable.
    expect(statSync(path).mode & 0o100).toBe(0o100);
    expect(statSync(path).size).toBeGreaterThan(50_000_000);
  });

  it('CHROMIUM_PATH=packaged takes the one the install brings even when the system has one', async () => {
    expect(await chromiumExecutable('packaged', systemBrowser)).toBe(
      await chromiumExecutable(undefined, nowhere),
    );
  });

  it('a CHROMIUM_PATH that names no file is refused, naming it', async () => {
    await expect(chromiumExecutable(nowhere, systemBrowser)).rejects.toThrow(
      /No Chromium at \/nowhere\/chromium \(CHROMIUM_PATH\)/,
    );
  });

  it('with CHROMIUM_PATH=packaged, launchChromium runs the packaged release and renders a page', async () => {
    vi.stubEnv('CHROMIUM_PATH', 'packaged');
    const browser = await launchChromium();
    try {
      expect(browser.version().split('.')[0]).toBe(packagedRelease().split('.')[0]);
      const page = await browser.newPage();
      await page.setContent('<h1>Consents</h1>');
      expect(await page.textContent('h1')).toBe('Consents');
    } finally {
      await browser.close();
    }
  });
});
