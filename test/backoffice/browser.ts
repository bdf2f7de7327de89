/**
 * Real Chromium for the back-office's browser tests (test/e2e/*.test.ts), driven with
 * playwright-core: the one `chromiumExecutable` picks (./chromium.ts: CHROMIUM_PATH, else the
 * system's /usr/bin/chromium, else the one the install brings), headless, with a fresh profile
 * (Playwright passes a new --user-data-dir to every launch and removes it on close), and no
 * network of its own (no updates, sync or QUIC). Screenshots go to test-results/screenshots/.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { repoRoot } from '../helpers/process.js';
import { chromiumExecutable } from './chromium.js';

export const screenshotDir = join(repoRoot, 'test-results', 'screenshots');
/**
 * Whether `capture()` keeps screenshots (`SCREENSHOTS=1 npm test`): for a person to look at the
 * pages; the checks run either way, and the pictures took a sixth of the browser tests' time.
 */
const screenshots = process.env.SCREENSHOTS === '1';

export const desktop = { width: 1280, height: 800 };
export const phone = { width: 390, height: 844 };

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: await chromiumExecutable(),
    headless: true,
    // The project's own flags for either browser, not the packaged one's `chromium.args`: those
    // are for AWS Lambda and turn off web security (--disable-web-security), which the pages'
    // own checks need on.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
}

/**
 * Collects what a page's console says went wrong (a CSP violation, a failed load, a script
 * error); `problems` must stay empty.
 */
export function watch(page: Page): { problems: string[] } {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') {
      problems.push(`${message.type()}: ${message.text()}`);
    }
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => {
    const error = request.failure()?.errorText ?? '';
    // A download is handed to the download manager, which aborts the page's own request.
    const download = request.url().endsWith('.csv') || request.url().includes('.csv?');
    // A script or style still loading when the test submits a form, or a frame's document (a
    // banner's preview), is cancelled by the browser as the page moves on: not a fault of the
    // page (a missing one is a 404, which the console reports).
    const leftBehind =
      error === 'net::ERR_ABORTED' &&
      (!request.isNavigationRequest() || request.frame() !== page.mainFrame());
    if (!download && !leftBehind) problems.push(`request failed: ${request.url()} ${error}`);
  });
  return { problems };
}

/** What a page must be, at any width: styled, labelled, and no wider than the screen. */
function pageFacts(page: Page): Promise<{
  styled: boolean;
  unlabelled: string[];
  overflow: number;
  wide: string[];
  h1: string;
}> {
  return page.evaluate(() => {
    // This runs in the page, where the DOM exists; the project's TypeScript has no DOM library.
    const { document, window, getComputedStyle } = globalThis as any;
    const fields: any[] = [
      ...document.querySelectorAll('input:not([type=hidden]), select, textarea'),
    ];
    const sticksOut = (e: any) =>
      e !== null && e.getBoundingClientRect().right > window.innerWidth + 1;
    return {
      styled:
        getComputedStyle(document.documentElement).getPropertyValue('--pico-primary').trim() !== '',
      unlabelled: fields
        .filter((f) => (f.labels?.length ?? 0) === 0 && !f.getAttribute('aria-label'))
        .map((f) => f.name),
      overflow: document.documentElement.scrollWidth - window.innerWidth,
      // The outermost elements that stick out, to say what to fix.
      wide: [...document.body.querySelectorAll('*')]
        .filter((e: any) => sticksOut(e) && !sticksOut(e.parentElement))
        .slice(0, 5)
        .map((e: any) => `${e.tagName.toLowerCase()}.${e.className}`),
      h1: document.querySelector('h1')?.textContent ?? '',
    };
  });
}

/** The focused element: its id, text and focus indicator. */
export function focusedElement(
  page: Page,
): Promise<{ id: string; text: string; outline: string; shadow: string }> {
  return page.evaluate(() => {
    const { document, getComputedStyle } = globalThis as any;
    const element = document.activeElement;
    const style = getComputedStyle(element);
    return {
      id: element.id,
      text: element.textContent,
      outline: style.outlineStyle,
      shadow: style.boxShadow,
    };
  });
}

/**
 * What axe-core finds wrong with the page as it is now shown, one line per rule and element
 * (`rule (impact): selector`); empty when nothing. Every rule axe runs by default, whatever its
 * impact, counts.
 */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  await loadAxe(page);
  // `axe.run` in the page checks its same-origin frames through the copies `loadAxe` put there,
  // and gathers their findings. Only violations are gathered: the passes and the rules that did
  // not apply are what made most of a check's results, sent back and read for nothing (with them
  // a check took half as long again). The page answers with the lines alone.
  return page.evaluate(async () => {
    // This runs in the page, where axe-core is loaded; the project's TypeScript has no DOM library.
    const { axe, document } = globalThis as any;
    const { violations } = await axe.run(document, { resultTypes: ['violations'] });
    return violations.flatMap((violation: any) =>
      violation.nodes.map(
        (node: any) =>
          `${violation.id} (${violation.impact ?? 'no impact'}): ${node.target.join(' ')}`,
      ),
    );
  });
}

/**
 * axe-core's minified build (650 KB; `axe.source` is the 1.5 MB unminified one), read once.
 * Sending and running it takes the browser about 0.2 s a document.
 */
const axeSource = readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8',
);

/**
 * Sends axe-core to each frame of the page that does not hold it yet: once a document, not with
 * each check; a page is checked at two widths.
 */
async function loadAxe(page: Page): Promise<void> {
  for (const frame of page.frames()) {
    try {
      if (await frame.evaluate(`typeof window.axe === 'object'`)) continue;
      await frame.evaluate(axeSource);
    } catch {
      // A frame that runs no script (a sandboxed banner preview): axe-core cannot check it.
    }
  }
}

/**
 * A page that is not the back-office's (the customer's preference centre): 0 axe violations at
 * desktop and phone width, and no sideways scrolling on a phone. Back at desktop width after.
 */
export async function fitsAndPassesAxe(page: Page, name: string): Promise<void> {
  await page.setViewportSize(desktop);
  expect
    .soft(await accessibilityViolations(page), `${name}: axe at ${desktop.width} px`)
    .toEqual([]);
  await page.setViewportSize(phone);
  const overflow = await page.evaluate(() => {
    const { document } = globalThis as any;
    return document.documentElement.scrollWidth - document.documentElement.clientWidth;
  });
  expect(overflow, `${name}: wider than a phone`).toBeLessThanOrEqual(0);
  expect.soft(await accessibilityViolations(page), `${name}: axe at ${phone.width} px`).toEqual([]);
  await page.setViewportSize(desktop);
}

/**
 * Checks the page at desktop width and at phone width (where it must not scroll sideways; wide
 * tables scroll inside their own box), and with `SCREENSHOTS=1` keeps a picture of the whole
 * page at each. At both widths
 * axe-core must find nothing wrong; its findings fail the test without stopping it (`soft`), so
 * that one run names every page and width that has one.
 */
export async function capture(page: Page, name: string): Promise<void> {
  mkdirSync(screenshotDir, { recursive: true });
  // The styles are loaded by then (a click's navigation may still be under way).
  await page.waitForLoadState('load');
  await page.setViewportSize(desktop);
  const facts = await pageFacts(page);
  expect(facts.styled, `${name}: Pico's styles did not apply`).toBe(true);
  expect(facts.unlabelled, `${name}: fields without a label`).toEqual([]);
  expect(facts.h1, `${name}: no heading`).not.toBe('');
  expect
    .soft(await accessibilityViolations(page), `${name}: axe at ${desktop.width} px`)
    .toEqual([]);
  if (screenshots) {
    await page.screenshot({ path: join(screenshotDir, `${name}-desktop.png`), fullPage: true });
  }
  await page.setViewportSize(phone);
  const narrow = await pageFacts(page);
  expect(
    narrow.overflow,
    `${name}: wider than a phone screen (${narrow.wide.join(', ')})`,
  ).toBeLessThanOrEqual(0);
  expect.soft(await accessibilityViolations(page), `${name}: axe at ${phone.width} px`).toEqual([]);
  if (screenshots) {
    await page.screenshot({ path: join(screenshotDir, `${name}-phone.png`), fullPage: true });
  }
  await page.setViewportSize(desktop);
}

/** Signs in from the sign-in page of the server at `baseUrl`, as a person types it. */
export async function signInAs(
  page: Page,
  baseUrl: string,
  email: string,
  password: string,
): Promise<void> {
  await page.goto(`${baseUrl}/backoffice/sign-in`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}
