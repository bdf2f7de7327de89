/**
 * What a test reads off a page of the fixture site in Chromium: the `dataLayer`, which held
 * tags ran, the banner's cookies, and where the keyboard focus is (inside the banner's shadow
 * root or not). The evaluated functions run in the page, where the DOM exists; the project's
 * TypeScript has no DOM library, hence `globalThis as any` there.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { inlineTags, tagNames } from './fixture-site.js';

/** A `dataLayer` entry: a gtag command (an `arguments` object) as `{ command }`, else as is. */
export type LayerEntry = { command: unknown[] } | Record<string, unknown>;

export function dataLayer(page: Page): Promise<LayerEntry[]> {
  return page.evaluate(() => {
    const { window } = globalThis as any;
    return (window.dataLayer ?? []).map((entry: any) =>
      Object.prototype.toString.call(entry) === '[object Arguments]'
        ? { command: Array.from(entry) }
        : entry,
    );
  });
}

/** The gtag `consent` commands, in order: `['consent', 'default' | 'update', {…}]`. */
export async function consentCommands(page: Page): Promise<unknown[][]> {
  return (await dataLayer(page)).flatMap((entry) =>
    Array.isArray(entry.command) && entry.command[0] === 'consent' ? [entry.command] : [],
  );
}

/** The `consentrix_consent_update` events pushed, in order. */
export async function consentEvents(page: Page): Promise<Record<string, unknown>[]> {
  return (await dataLayer(page)).filter(
    (entry) => (entry as Record<string, unknown>).event === 'consentrix_consent_update',
  ) as Record<string, unknown>[];
}

/** Which held tags ran: the external ones by name, the inline ones as `inline_<category>`. */
export function ran(page: Page): Promise<Record<string, boolean>> {
  const names = [...tagNames, ...inlineTags.map((category) => `inline_${category}`)];
  return page.evaluate((all) => {
    const { window } = globalThis as any;
    return Object.fromEntries(all.map((name) => [name, window[`__ran_${name}`] === true]));
  }, names);
}

/** The external tags in the order they ran. */
export function ranOrder(page: Page): Promise<string[]> {
  return page.evaluate(() => (globalThis as any).window.__order ?? []);
}

/** A cookie of the site, by name, as the browser holds it. */
export async function cookie(context: BrowserContext, origin: string, name: string) {
  return (await context.cookies(origin)).find((each) => each.name === name);
}

/** The stored choice, decoded from `consentrix_consent`. */
export async function storedChoice(context: BrowserContext, origin: string) {
  const value = (await cookie(context, origin, 'consentrix_consent'))?.value;
  return value === undefined
    ? undefined
    : (JSON.parse(decodeURIComponent(value)) as Record<string, unknown>);
}

/** Where the keyboard focus is, looking into shadow roots. */
export function focused(page: Page): Promise<{
  inBanner: boolean;
  id: string;
  tag: string;
  text: string;
  action: string | null;
  outline: string;
}> {
  return page.evaluate(() => {
    const { document, getComputedStyle } = globalThis as any;
    let element = document.activeElement;
    while (element?.shadowRoot?.activeElement) element = element.shadowRoot.activeElement;
    return {
      inBanner: element.getRootNode() !== document,
      id: element.id,
      tag: element.tagName.toLowerCase(),
      text: element.textContent,
      action: element.getAttribute('data-consentrix-action'),
      outline: getComputedStyle(element).outlineStyle,
    };
  });
}

/** How far the page scrolls sideways (0 or less: not at all), and the dialog's box. */
export function overflow(page: Page): Promise<{ sideways: number; left: number; right: number }> {
  return page.evaluate(() => {
    const { document, window } = globalThis as any;
    const box = document
      .querySelector('[data-consentrix]')
      .shadowRoot.querySelector('[role=dialog]')
      .getBoundingClientRect();
    return {
      sideways: document.documentElement.scrollWidth - window.innerWidth,
      left: box.left,
      right: box.right - window.innerWidth,
    };
  });
}
