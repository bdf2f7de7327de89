/**
 * The scanner's browser: a headless Chromium of its own for each scan (the one
 * `CHROMIUM_PATH` names, else the system's, else the packaged one), with a fresh profile that
 * Playwright removes on close, and none of the service's environment: its process sees only a
 * home and a temporary directory of its own, so no secret of the service (a database URL, a key)
 * reaches it. A scanned page can reach only what any visitor's browser can: the network.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { chromiumExecutable } from '../platform/chromium.js';
import type { CookieScanSettings } from '../platform/config.js';

/** A launched browser and how to be done with it (the browser and its home removed). */
export interface ScanBrowser {
  browser: Browser;
  close(): Promise<void>;
}

export async function launchScanBrowser(settings: CookieScanSettings): Promise<ScanBrowser> {
  const home = mkdtempSync(join(tmpdir(), 'consent-scan-'));
  const args = [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--disable-quic',
    '--disable-dev-shm-usage',
  ];
  if (settings.hostRules) args.push(`--host-resolver-rules=${settings.hostRules}`);
  try {
    // Loaded with the first scan: playwright-core took half a second of every start of the
    // service and of each command, which most never scan.
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({
      executablePath: await chromiumExecutable(settings.chromiumPath),
      headless: true,
      args,
      env: { HOME: home, TMPDIR: home, LANG: 'en_US.UTF-8' },
      timeout: 60_000,
    });
    return {
      browser,
      async close() {
        await browser.close().catch(() => {});
        rmSync(home, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(home, { recursive: true, force: true });
    throw error;
  }
}
