/**
 * The cookie banner in real Chromium, on a fixture website of its own origin, its script and
 * its choices served by a stand-in for the service (`banner-service.ts`): what runs before and
 * after a choice, what the cookies, the `dataLayer` and Consent Mode say, what is recorded, when
 * the visitor is asked again, and how the dialog reads, fits and takes the keyboard.
 */
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BannerConfig } from '../../src/cookies/banner-config.js';
import { accessibilityViolations, launchChromium, watch } from '../backoffice/browser.js';
import { budget } from '../helpers/time.js';
import { bilingualConfig, englishTexts, shopConfig, thaiTexts } from './banner-configs.js';
import {
  consentCommands,
  consentEvents,
  cookie,
  focused,
  overflow,
  ran,
  ranOrder,
  storedChoice,
} from './banner-page.js';
import { type BannerService, startBannerService } from './banner-service.js';
import { type FixtureSite, type PageOptions, startFixtureSite } from './fixture-site.js';

const uuidV4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const allDenied = {
  ad_storage: 'denied',
  ad_user_data: 'denied',
  ad_personalization: 'denied',
  analytics_storage: 'denied',
  functionality_storage: 'denied',
  personalization_storage: 'denied',
  security_storage: 'granted',
};
const allGranted = {
  ad_storage: 'granted',
  ad_user_data: 'granted',
  ad_personalization: 'granted',
  analytics_storage: 'granted',
  functionality_storage: 'granted',
  personalization_storage: 'granted',
  security_storage: 'granted',
};

describe('the cookie banner in Chromium', () => {
  let service: BannerService;
  let site: FixtureSite;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let scopes = 0;

  beforeAll(async () => {
    service = await startBannerService();
    site = await startFixtureSite(service.origin);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await service?.close();
  });

  /** Publishes `config` (the shop's by default) under a scope of its own; answers the scope. */
  function publish(make: (changes: Partial<BannerConfig>) => BannerConfig = shopConfig) {
    scopes += 1;
    const scope = `shop-${scopes}`;
    service.publish(make({ scope }));
    return scope;
  }

  /** A fresh browser profile (no cookies, no cache). */
  async function newContext(options: BrowserContextOptions = {}): Promise<BrowserContext> {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      ...options,
    });
    contexts.push(context);
    return context;
  }

  /** Opens a page of the site in `context`; its console must stay clean. */
  async function visit(context: BrowserContext, options: PageOptions) {
    const page = await context.newPage();
    page.setDefaultTimeout(budget(5_000));
    const console = watch(page);
    await page.goto(site.page(options));
    return { page, problems: console.problems };
  }

  const dialog = (page: Page) => page.getByRole('dialog');
  const choicesOf = (scope: string) => service.choices.filter((choice) => choice.scope === scope);
  /** The late tag (added 50 ms after load) is in the page, held back. */
  const lateTagHeld = (page: Page) =>
    page
      .locator('script[data-consentrix-category="functional"][data-consentrix-blocked="true"]')
      .count();

  afterEach(async () => {
    for (const context of contexts.splice(0)) await context.close();
  });

  it('before a choice, runs and fetches no held tag, and Consent Mode starts all denied but security', async () => {
    const scope = publish();
    const before = site.tagRequests();
    const { page, problems } = await visit(await newContext(), { scope });
    await dialog(page).waitFor();
    await expect.poll(() => lateTagHeld(page)).toBe(1);

    const held = page.locator('script[type="text/plain"][data-consentrix-category]');
    expect(await held.count()).toBe(7);
    expect(await page.locator('script[data-consentrix-blocked="true"]').count()).toBe(7);
    expect(Object.values(await ran(page))).not.toContain(true);
    expect(site.tagRequests()).toEqual(before);

    const commands = await consentCommands(page);
    expect(commands[0]).toEqual(['consent', 'default', { ...allDenied, wait_for_update: 500 }]);
    expect(commands).toHaveLength(1);
    expect(await consentEvents(page)).toEqual([]);
    expect(await page.evaluate(() => (globalThis as any).Consentrix.consent())).toBeNull();
    expect(await page.context().cookies(site.origin)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('Accept all runs the held tags, stores and pushes the four booleans, and records one choice; the next visit asks nothing', async () => {
    const scope = publish();
    const context = await newContext();
    const before = site.tagRequests();
    const { page, problems } = await visit(context, { scope });
    await expect.poll(() => lateTagHeld(page)).toBe(1);
    await page.getByRole('button', { name: 'Accept all' }).click();

    await expect
      .poll(() => ran(page))
      .toEqual({
        analytics: true,
        marketing: true,
        functional: true,
        inline_analytics: true,
        inline_personalization: true,
        inline_loyalty: true,
        inline_social: false,
      });
    expect(await dialog(page).count()).toBe(0);
    // In the page's order, though the first tag's host answers last.
    expect(await ranOrder(page)).toEqual(['analytics', 'marketing', 'functional']);
    expect(site.tagRequests()).toEqual({
      analytics: before.analytics + 1,
      marketing: before.marketing + 1,
      functional: before.functional + 1,
    });
    // The tag of a category no configuration has stays held; the others were put back as
    // scripts the browser runs, the one with data-consentrix-type with that type.
    expect(await page.locator('script[data-consentrix-blocked="true"]').count()).toBe(1);
    expect(
      await page.locator('script[data-consentrix-category="personalization"]').getAttribute('type'),
    ).toBe('text/javascript');

    const categories = await cookie(context, site.origin, 'consentrix_categories');
    expect(categories?.value).toBe(
      '%7B%22analytics%22%3Atrue%2C%22functional%22%3Atrue%2C%22marketing%22%3Atrue%2C%22personalization%22%3Atrue%7D',
    );
    expect(categories).toMatchObject({ path: '/', sameSite: 'Lax', secure: false });
    // max-age is the lifetime, 180 days, from the moment of the choice.
    const expires = (categories?.expires ?? 0) * 1000;
    expect(expires).toBeGreaterThan(Date.now() + 179 * 86_400_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 180 * 86_400_000);

    expect(await consentEvents(page)).toEqual([
      {
        event: 'consentrix_consent_update',
        consentrix_analytics: true,
        consentrix_marketing: true,
        consentrix_functional: true,
        consentrix_personalization: true,
      },
    ]);
    expect((await consentCommands(page)).slice(1)).toEqual([['consent', 'update', allGranted]]);

    await expect.poll(() => choicesOf(scope).length).toBe(1);
    const [recorded] = choicesOf(scope);
    const stored = await storedChoice(context, site.origin);
    expect(recorded?.body).toEqual({
      event_id: expect.stringMatching(uuidV4),
      visitor_id: stored?.visitor_id,
      configuration_id: '0b6f7c3e-52a4-4d8e-9a51-3c0f2d8e7a10',
      configuration_version: 3,
      method: 'accept-all',
      categories: {
        necessary: true,
        analytics: true,
        marketing: true,
        functional: true,
        personalization: true,
        loyalty: true,
      },
      locale: 'en',
    });
    expect(stored?.visitor_id).toMatch(uuidV4);
    expect(recorded?.headers['content-type']).toBe('text/plain;charset=UTF-8');
    expect(recorded?.headers.cookie).toBeUndefined();
    expect(service.preflights()).toBe(0);

    await expect
      .poll(async () => (await storedChoice(context, site.origin))?.decision_id)
      .toBe(recorded?.decisionId);
    expect(Object.keys((await storedChoice(context, site.origin)) ?? {})).toEqual([
      'visitor_id',
      'configuration_id',
      'fingerprint',
      'decided_at',
      'method',
      'decision_id',
      'categories',
    ]);
    expect(await page.evaluate(() => (globalThis as any).Consentrix.consent())).toEqual({
      categories: recorded?.body.categories,
      method: 'accept-all',
      decided_at: (await storedChoice(context, site.origin))?.decided_at,
      decision_id: recorded?.decisionId,
      visitor_id: stored?.visitor_id,
    });

    // The next page view: no banner, no request, the choice applied again.
    await page.goto(site.page({ scope }));
    await expect.poll(() => ran(page)).toMatchObject({ analytics: true, functional: true });
    expect(await ranOrder(page)).toEqual(['analytics', 'marketing', 'functional']);
    expect(await page.locator('[data-consentrix]').count()).toBe(0);
    expect(await consentEvents(page)).toHaveLength(1);
    expect(await consentCommands(page)).toEqual([
      ['consent', 'default', { ...allDenied, wait_for_update: 500 }],
      ['consent', 'update', allGranted],
    ]);
    expect(site.tagRequests().analytics).toBe(before.analytics + 2);
    expect(choicesOf(scope)).toHaveLength(1);
    expect(problems).toEqual([]);
  });

  it('Reject all runs no held tag, stores four false and records reject-all', async () => {
    const scope = publish();
    const context = await newContext();
    const before = site.tagRequests();
    const { page, problems } = await visit(context, { scope });
    await expect.poll(() => lateTagHeld(page)).toBe(1);
    await page.getByRole('button', { name: 'Reject all' }).click();

    await expect.poll(() => choicesOf(scope).length).toBe(1);
    expect(choicesOf(scope)[0]?.body).toMatchObject({
      method: 'reject-all',
      categories: {
        necessary: true,
        analytics: false,
        marketing: false,
        functional: false,
        personalization: false,
        loyalty: false,
      },
    });
    expect((await cookie(context, site.origin, 'consentrix_categories'))?.value).toBe(
      '%7B%22analytics%22%3Afalse%2C%22functional%22%3Afalse%2C%22marketing%22%3Afalse%2C%22personalization%22%3Afalse%7D',
    );
    expect((await consentCommands(page)).slice(1)).toEqual([['consent', 'update', allDenied]]);
    expect(await consentEvents(page)).toEqual([
      {
        event: 'consentrix_consent_update',
        consentrix_analytics: false,
        consentrix_marketing: false,
        consentrix_functional: false,
        consentrix_personalization: false,
      },
    ]);
    expect(Object.values(await ran(page))).not.toContain(true);
    expect(await page.locator('script[data-consentrix-blocked="true"]').count()).toBe(7);
    expect(site.tagRequests()).toEqual(before);
    expect(problems).toEqual([]);
  });

  it('a custom choice runs only what was switched on, the tenant’s own category included', async () => {
    const scope = publish();
    const context = await newContext();
    const before = site.tagRequests();
    const { page, problems } = await visit(context, { scope });
    await page.getByRole('button', { name: 'Preferences' }).click();
    await expect(
      page.getByRole('heading', { name: englishTexts.preferences_title }).count(),
    ).resolves.toBe(1);
    const necessary = page.getByRole('switch', { name: 'Strictly necessary' });
    expect(await necessary.isChecked()).toBe(true);
    expect(await necessary.isDisabled()).toBe(true);
    expect(await page.getByRole('switch', { name: 'Analytics' }).isChecked()).toBe(false);
    await page.getByRole('switch', { name: 'Analytics' }).check();
    await page.getByRole('switch', { name: 'Loyalty programme' }).check();
    await page.getByRole('button', { name: 'Save my choices' }).click();

    await expect
      .poll(() => ran(page))
      .toEqual({
        analytics: true,
        marketing: false,
        functional: false,
        inline_analytics: true,
        inline_personalization: false,
        inline_loyalty: true,
        inline_social: false,
      });
    await expect.poll(() => choicesOf(scope).length).toBe(1);
    expect(choicesOf(scope)[0]?.body).toMatchObject({
      method: 'custom',
      categories: {
        necessary: true,
        analytics: true,
        marketing: false,
        functional: false,
        personalization: false,
        loyalty: true,
      },
    });
    expect((await cookie(context, site.origin, 'consentrix_categories'))?.value).toBe(
      '%7B%22analytics%22%3Atrue%2C%22functional%22%3Afalse%2C%22marketing%22%3Afalse%2C%22personalization%22%3Afalse%7D',
    );
    expect((await consentCommands(page)).slice(1)).toEqual([
      ['consent', 'update', { ...allDenied, analytics_storage: 'granted' }],
    ]);
    // The late functional tag arrives after the choice and stays held.
    await expect.poll(() => lateTagHeld(page)).toBe(1);
    expect(site.tagRequests()).toEqual({ ...before, analytics: before.analytics + 1 });
    expect(problems).toEqual([]);
  });

  it('a custom category mapped onto a standard one feeds its Consent Mode types, cookie boolean and event key; with both, one refused keeps it denied', async () => {
    // The shop without the standard functional category, with its own "preferences" as it.
    const mapped = publish((changes) => {
      const config = shopConfig(changes);
      return {
        ...config,
        categories: [
          ...config.categories.filter((c) => c.key !== 'functional'),
          {
            key: 'preferences',
            required: false,
            maps_to: 'functional',
            texts: { en: { name: 'Preferences', description: 'Your language and region.' } },
          },
        ],
      };
    });
    const context = await newContext();
    const { page, problems } = await visit(context, { scope: mapped });
    await page.getByRole('button', { name: 'Preferences', exact: true }).click();
    await page.getByRole('switch', { name: 'Preferences' }).check();
    await page.getByRole('button', { name: 'Save my choices' }).click();
    await expect
      .poll(async () => (await consentCommands(page)).slice(1))
      .toEqual([['consent', 'update', { ...allDenied, functionality_storage: 'granted' }]]);
    expect((await cookie(context, site.origin, 'consentrix_categories'))?.value).toBe(
      '%7B%22analytics%22%3Afalse%2C%22functional%22%3Atrue%2C%22marketing%22%3Afalse%2C%22personalization%22%3Afalse%7D',
    );
    expect(await consentEvents(page)).toEqual([
      {
        event: 'consentrix_consent_update',
        consentrix_analytics: false,
        consentrix_marketing: false,
        consentrix_functional: true,
        consentrix_personalization: false,
      },
    ]);

    // The shop with both: functional refused, its own "loyalty" (mapped onto it) granted.
    const both = publish((changes) => {
      const config = shopConfig(changes);
      return {
        ...config,
        categories: config.categories.map((c) =>
          c.key === 'loyalty' ? { ...c, maps_to: 'functional' as const } : c,
        ),
      };
    });
    const second = await visit(await newContext(), { scope: both });
    await second.page.getByRole('button', { name: 'Preferences' }).click();
    await second.page.getByRole('switch', { name: 'Loyalty programme' }).check();
    await second.page.getByRole('button', { name: 'Save my choices' }).click();
    await expect
      .poll(async () => (await consentCommands(second.page)).slice(1))
      .toEqual([['consent', 'update', allDenied]]);
    expect(problems).toEqual([]);
    expect(second.problems).toEqual([]);
  });

  it('removes the cookies a refused or withdrawn category lists (names and prefixes), and no other', async () => {
    const scope = publish((changes) => {
      const config = shopConfig(changes);
      return {
        ...config,
        categories: config.categories.map((c) =>
          c.key === 'analytics'
            ? { ...c, cookies: [{ name: '_ga' }, { name: '_ga_*' }, { name: '_hjSessionUser_*' }] }
            : c.key === 'marketing'
              ? { ...c, cookies: [{ name: '_fbp' }] }
              : c,
        ),
      };
    });
    const trackers = ['_ga', '_ga_K2X9', '_hjSessionUser_3104', '_fbp', 'basket', '_gat'];
    const names = async (context: BrowserContext) =>
      (await context.cookies(site.origin)).map((c) => c.name).sort();
    const plant = (context: BrowserContext) =>
      context.addCookies(trackers.map((name) => ({ name, value: '1', url: site.origin })));

    // Reject all: the listed ones of both refused categories go; basket and _gat (not listed) stay.
    const rejecting = await newContext();
    await plant(rejecting);
    const first = await visit(rejecting, { scope });
    await first.page.getByRole('button', { name: 'Reject all' }).click();
    await expect
      .poll(() => names(rejecting))
      .toEqual(['_gat', 'basket', 'consentrix_categories', 'consentrix_consent']);

    // Accept all keeps them; withdrawing analytics later removes its cookies, not marketing's.
    const withdrawing = await newContext();
    await plant(withdrawing);
    const second = await visit(withdrawing, { scope });
    await second.page.getByRole('button', { name: 'Accept all' }).click();
    await expect.poll(() => choicesOf(scope).length).toBe(2);
    expect(await names(withdrawing)).toEqual(
      [...trackers, 'consentrix_categories', 'consentrix_consent'].sort(),
    );
    await second.page.evaluate(() => (globalThis as any).Consentrix.open());
    await second.page.getByRole('switch', { name: 'Analytics' }).uncheck();
    await second.page.getByRole('button', { name: 'Save my choices' }).click();
    await expect
      .poll(() => names(withdrawing))
      .toEqual(['_fbp', '_gat', 'basket', 'consentrix_categories', 'consentrix_consent']);

    // A later page view removes what a tracker set again while the category stays refused.
    await withdrawing.addCookies([{ name: '_ga', value: '2', url: site.origin }]);
    await visit(withdrawing, { scope });
    await expect.poll(async () => (await names(withdrawing)).includes('_ga')).toBe(false);
    expect(first.problems).toEqual([]);
    expect(second.problems).toEqual([]);
  });

  describe('a held embed (an iframe with data-src)', () => {
    const withEmbedTexts = (changes: Partial<BannerConfig>) => {
      const config = bilingualConfig(changes);
      return {
        ...config,
        texts: {
          en: {
            ...englishTexts,
            held_content: 'This video is shown once you allow {category} cookies.',
            allow_category: 'Allow {category}',
          },
          th: {
            ...thaiTexts,
            held_content: 'วิดีโอนี้จะแสดงเมื่อคุณอนุญาต{category}',
            allow_category: 'อนุญาต{category}',
          },
        },
      };
    };
    const frame = (page: Page) => page.locator('iframe[title="Our tea video"]');
    const placeholder = (page: Page) => page.locator('[data-consentrix-placeholder="marketing"]');

    it('loads nothing before consent and stands a placeholder in the visitor’s language; its button allows the category and loads it', async () => {
      const scope = publish(withEmbedTexts);
      const before = site.embedRequests();
      const context = await newContext({ viewport: { width: 390, height: 844 } });
      const { page, problems } = await visit(context, { scope, embed: true, lang: 'th' });
      await dialog(page).waitFor();
      await placeholder(page).waitFor();
      expect(await placeholder(page).locator('p').textContent()).toBe(
        'วิดีโอนี้จะแสดงเมื่อคุณอนุญาตการตลาด',
      );
      expect(await frame(page).isVisible()).toBe(false);
      expect(site.embedRequests()).toBe(before);
      // The placeholder is never wider than the screen, whatever the frame's width.
      const box = await placeholder(page).boundingBox();
      expect(box?.width).toBeLessThanOrEqual(390);

      await page.getByRole('button', { name: 'อนุญาตการตลาด' }).click();
      await expect.poll(() => frame(page).isVisible()).toBe(true);
      await expect.poll(() => site.embedRequests()).toBe(before + 1);
      expect(await placeholder(page).count()).toBe(0);
      await expect.poll(() => choicesOf(scope).length).toBe(1);
      expect(choicesOf(scope)[0]?.body).toMatchObject({
        method: 'custom',
        categories: { marketing: true, analytics: false, functional: false },
      });
      expect(problems).toEqual([]);
    });

    it('loads on Accept all from the banner; without placeholder texts its button opens the preferences', async () => {
      const scope = publish();
      const before = site.embedRequests();
      const { page, problems } = await visit(await newContext(), { scope, embed: true });
      await placeholder(page).waitFor();
      await placeholder(page).getByRole('button', { name: 'Preferences' }).click();
      await page.getByRole('heading', { name: englishTexts.preferences_title }).waitFor();
      expect(site.embedRequests()).toBe(before);
      await page.getByRole('button', { name: 'Close' }).click();
      await page.getByRole('button', { name: 'Accept all' }).click();
      await expect.poll(() => site.embedRequests()).toBe(before + 1);
      expect(await frame(page).getAttribute('src')).toBe(`${site.tagOrigins.marketing}/embed.html`);
      expect(await placeholder(page).count()).toBe(0);
      expect(problems).toEqual([]);
    });
  });

  it('links the cookie policy when its URL is http(s), and shows no link otherwise', async () => {
    const linked = publish();
    const { page } = await visit(await newContext(), { scope: linked });
    const link = page.getByRole('link', { name: englishTexts.policy_label });
    expect(await link.getAttribute('href')).toBe('https://shop.example/legal/cookie-policy');
    expect(await link.getAttribute('rel')).toBe('noopener');

    for (const policy_url of ['', 'javascript:alert(1)']) {
      const scope = publish((changes) =>
        shopConfig({ ...changes, texts: { en: { ...englishTexts, policy_url } } }),
      );
      const other = await visit(await newContext(), { scope });
      await dialog(other.page).waitFor();
      expect(await dialog(other.page).getByRole('link').count(), policy_url).toBe(0);
    }
  });

  describe('under Global Privacy Control', () => {
    it('from the browser: marketing and personalization stay off, the banner says so, Accept all is recorded as gpc', async () => {
      const scope = publish();
      const context = await newContext();
      await context.addInitScript(() => {
        Object.defineProperty((globalThis as any).navigator, 'globalPrivacyControl', {
          value: true,
        });
      });
      const before = site.tagRequests();
      const { page, problems } = await visit(context, { scope });
      await expect(page.getByText(englishTexts.gpc_note).count()).resolves.toBe(1);
      expect((await consentCommands(page))[0]).toEqual([
        'consent',
        'default',
        { ...allDenied, wait_for_update: 500 },
      ]);
      await page.getByRole('button', { name: 'Preferences' }).click();
      expect(await page.getByRole('switch', { name: 'Marketing' }).isChecked()).toBe(false);
      expect(await page.getByRole('switch', { name: 'Personalization' }).isChecked()).toBe(false);
      await page.getByRole('button', { name: 'Close' }).click();
      await page.getByRole('button', { name: 'Accept all' }).click();

      await expect.poll(() => choicesOf(scope).length).toBe(1);
      expect(choicesOf(scope)[0]?.body).toMatchObject({
        method: 'gpc',
        categories: {
          necessary: true,
          analytics: true,
          marketing: false,
          functional: true,
          personalization: false,
          loyalty: true,
        },
      });
      await expect.poll(() => ran(page)).toMatchObject({ analytics: true, functional: true });
      expect(await ran(page)).toMatchObject({ marketing: false, inline_personalization: false });
      expect(site.tagRequests().marketing).toBe(before.marketing);
      expect(await consentEvents(page)).toEqual([
        {
          event: 'consentrix_consent_update',
          consentrix_analytics: true,
          consentrix_marketing: false,
          consentrix_functional: true,
          consentrix_personalization: false,
        },
      ]);
      expect(problems).toEqual([]);
    });

    it('on a banner without marketing or personalization, no GPC note is shown: GPC changes nothing there', async () => {
      const scope = publish((changes) => {
        const config = shopConfig({ ...changes, gpc: true });
        return {
          ...config,
          categories: config.categories.filter((c) => !/^(marketing|personalization)$/.test(c.key)),
        };
      });
      const { page, problems } = await visit(await newContext(), { scope });
      await dialog(page).waitFor();
      await expect(dialog(page).getByText(englishTexts.title).count()).resolves.toBe(1);
      await expect(page.getByText(englishTexts.gpc_note).count()).resolves.toBe(0);
      expect(problems).toEqual([]);
    });

    it('from the service (the script was asked with Sec-GPC): the same', async () => {
      const scope = publish((changes) => shopConfig({ ...changes, gpc: true }));
      const { page, problems } = await visit(await newContext(), { scope });
      await expect(page.getByText(englishTexts.gpc_note).count()).resolves.toBe(1);
      await page.getByRole('button', { name: 'Accept all' }).click();
      await expect.poll(() => choicesOf(scope).length).toBe(1);
      expect(choicesOf(scope)[0]?.body).toMatchObject({
        method: 'gpc',
        categories: { marketing: false, personalization: false, analytics: true },
      });
      expect(problems).toEqual([]);
    });

    it('Reject all stays reject-all', async () => {
      const scope = publish((changes) => shopConfig({ ...changes, gpc: true }));
      const { page } = await visit(await newContext(), { scope });
      await page.getByRole('button', { name: 'Reject all' }).click();
      await expect.poll(() => choicesOf(scope).length).toBe(1);
      expect(choicesOf(scope)[0]?.body.method).toBe('reject-all');
    });
  });

  describe('under an opt-out rule (the visitor’s region’s)', () => {
    const optOut = (changes: Partial<BannerConfig>) => shopConfig({ ...changes, mode: 'opt-out' });

    it('runs every tag before a choice and tells Consent Mode so, still shows the notice, and Reject all is recorded and stops them on the next page', async () => {
      const scope = publish(optOut);
      const context = await newContext();
      const { page, problems } = await visit(context, { scope });
      await dialog(page).waitFor();
      await expect
        .poll(() => ran(page))
        .toMatchObject({ analytics: true, marketing: true, functional: true });
      expect((await consentCommands(page)).slice(0, 2)).toEqual([
        ['consent', 'default', { ...allDenied, wait_for_update: 500 }],
        ['consent', 'update', allGranted],
      ]);
      expect(choicesOf(scope)).toEqual([]);
      expect(await storedChoice(context, site.origin)).toBeUndefined();
      // The preferences show what holds now: everything on.
      await page.getByRole('button', { name: 'Preferences' }).click();
      expect(await page.getByRole('switch', { name: 'Marketing' }).isChecked()).toBe(true);
      await page.getByRole('button', { name: 'Close' }).click();

      await page.getByRole('button', { name: 'Reject all' }).click();
      await expect.poll(() => choicesOf(scope).length).toBe(1);
      expect(choicesOf(scope)[0]?.body).toMatchObject({
        method: 'reject-all',
        categories: { necessary: true, analytics: false, marketing: false },
      });
      expect((await consentCommands(page)).at(-1)).toEqual(['consent', 'update', allDenied]);
      const next = await visit(context, { scope });
      await next.page.waitForLoadState('load');
      expect(Object.values(await ran(next.page))).not.toContain(true);
      expect(await dialog(next.page).count()).toBe(0);
      expect(problems).toEqual([]);
    });

    it('with Global Privacy Control, records a gpc choice at once with nothing asked: marketing and personalization never run', async () => {
      const scope = publish(optOut);
      const context = await newContext();
      await context.addInitScript(() => {
        Object.defineProperty((globalThis as any).navigator, 'globalPrivacyControl', {
          value: true,
        });
      });
      const before = site.tagRequests();
      const { page, problems } = await visit(context, { scope });
      await expect.poll(() => choicesOf(scope).length).toBe(1);
      expect(choicesOf(scope)[0]?.body).toMatchObject({
        method: 'gpc',
        categories: {
          necessary: true,
          analytics: true,
          marketing: false,
          functional: true,
          personalization: false,
        },
      });
      expect(await dialog(page).count()).toBe(0);
      await expect.poll(() => ran(page)).toMatchObject({ analytics: true, functional: true });
      expect(await ran(page)).toMatchObject({ marketing: false, inline_personalization: false });
      expect(site.tagRequests().marketing).toBe(before.marketing);
      expect(problems).toEqual([]);
    });
  });

  describe('the published tag (the defaults inline, the banner async)', () => {
    const denialDefault = ['consent', 'default', { ...allDenied, wait_for_update: 500 }];
    /** What GTM's tag found in the dataLayer when it ran. */
    const gtmSaw = (page: Page) => page.evaluate(() => (globalThis as any).window.__gtm_saw);

    it('sets the denied defaults once, before GTM runs, and the banner then asks and applies the choice', async () => {
      const scope = publish();
      const { page, problems } = await visit(await newContext(), {
        scope,
        tag: 'published',
        gtm: true,
      });
      await dialog(page).waitFor();
      await expect.poll(() => gtmSaw(page)).toEqual([denialDefault]);
      expect(await consentCommands(page)).toEqual([denialDefault]);
      await page.getByRole('button', { name: 'Accept all' }).click();
      await expect
        .poll(() => consentCommands(page))
        .toEqual([denialDefault, ['consent', 'update', allGranted]]);
      await expect.poll(() => ran(page)).toMatchObject({ analytics: true, marketing: true });
      expect(problems).toEqual([]);
    });

    it('with the service hung, the page renders at once, GTM runs on the denied defaults and no held tag runs', async () => {
      const scope = publish();
      const waiting = service.hang(scope);
      const page = await (await newContext()).newPage();
      page.setDefaultTimeout(budget(5_000));
      // Not `load`: an async script that never arrives holds that event, never the parsing.
      await page.goto(site.page({ scope, tag: 'published', gtm: true }), {
        waitUntil: 'domcontentloaded',
      });
      await page.getByRole('heading', { name: 'Fixture shop' }).waitFor();
      await expect.poll(() => gtmSaw(page)).toEqual([denialDefault]);
      // The page was parsed and GTM ran while the banner's request still waits for an answer.
      expect(waiting()).toBe(1);
      expect(await page.evaluate(() => (globalThis as any).window.Consentrix)).toBeUndefined();
      expect(Object.values(await ran(page))).not.toContain(true);
    });

    it('a banner made async with no defaults before it warns in the console, and still sets them', async () => {
      const scope = publish();
      const { page, problems } = await visit(await newContext(), { scope, tag: 'async' });
      await dialog(page).waitFor();
      expect(await consentCommands(page)).toEqual([denialDefault]);
      expect(problems).toEqual([
        expect.stringMatching(/^warning: Consentrix: banner\.js ran async or deferred/),
      ]);
    });
  });

  it('asks again when the fingerprint changed, not when only the texts did', async () => {
    const scope = publish();
    const first = await newContext();
    const { page } = await visit(first, { scope });
    await page.getByRole('button', { name: 'Accept all' }).click();
    await expect.poll(() => choicesOf(scope).length).toBe(1);
    const cookies = await first.cookies(site.origin);

    // A new publication with other words, the same categories: the choice still fits.
    const reworded = { ...englishTexts, title: 'Cookies, briefly', preferences_title: 'Settings' };
    service.publish(
      shopConfig({
        scope,
        configuration: {
          id: '0b6f7c3e-52a4-4d8e-9a51-3c0f2d8e7a10',
          version: 4,
          fingerprint: 'f1a9c2',
        },
        texts: { en: reworded },
      }),
    );
    const later = await newContext();
    await later.addCookies(cookies);
    const second = await visit(later, { scope });
    await expect.poll(() => consentEvents(second.page)).toHaveLength(1);
    expect(await second.page.locator('[data-consentrix]').count()).toBe(0);
    // That page runs the new publication (its panel has the new heading).
    await second.page.evaluate(() => (globalThis as any).Consentrix.open());
    await second.page.getByRole('heading', { name: 'Settings' }).waitFor();

    // A category added: another fingerprint, asked again.
    service.publish(
      shopConfig({
        scope,
        configuration: {
          id: '0b6f7c3e-52a4-4d8e-9a51-3c0f2d8e7a10',
          version: 5,
          fingerprint: 'b7d3e0',
        },
      }),
    );
    const latest = await newContext();
    await latest.addCookies(cookies);
    const third = await visit(latest, { scope });
    await third.page.getByRole('heading', { name: englishTexts.title }).waitFor();
    expect(await consentEvents(third.page)).toEqual([]);
    // While asked again nothing says granted: a GTM template restoring consent from the old
    // consentrix_categories (all true) would grant what the visitor is being asked about.
    expect(await cookie(latest, site.origin, 'consentrix_categories')).toBeUndefined();
    expect(choicesOf(scope)).toHaveLength(1);
  });

  it('asks again when the stored choice is older than the lifetime, keeping the visitor id', async () => {
    const scope = publish();
    const visitorId = '5a0c2f0e-9d1b-4c3a-8e7f-6b5d4c3b2a19';
    const choiceCookie = (decidedAt: string) => ({
      name: 'consentrix_consent',
      value: encodeURIComponent(
        JSON.stringify({
          visitor_id: visitorId,
          configuration_id: '0b6f7c3e-52a4-4d8e-9a51-3c0f2d8e7a10',
          fingerprint: 'f1a9c2',
          decided_at: decidedAt,
          method: 'accept-all',
          decision_id: '7c1e9a52-0d4b-4f6e-a3c8-2b9d5e1f7a60',
          categories: {
            necessary: true,
            analytics: true,
            marketing: true,
            functional: true,
            personalization: true,
            loyalty: true,
          },
        }),
      ),
      url: site.origin,
    });

    // Within the lifetime (180 days): applied, not asked.
    const fresh = await newContext();
    await fresh.addCookies([choiceCookie(new Date(Date.now() - 86_400_000).toISOString())]);
    const kept = await visit(fresh, { scope });
    await expect.poll(() => ran(kept.page)).toMatchObject({ analytics: true });
    expect(await kept.page.locator('[data-consentrix]').count()).toBe(0);

    const old = await newContext();
    await old.addCookies([choiceCookie('2020-01-01T00:00:00.000Z')]);
    const { page, problems } = await visit(old, { scope });
    await page.getByRole('heading', { name: englishTexts.title }).waitFor();
    expect(Object.values(await ran(page))).not.toContain(true);
    expect(await consentEvents(page)).toEqual([]);
    await page.getByRole('button', { name: 'Reject all' }).click();
    await expect.poll(() => choicesOf(scope).length).toBe(1);
    expect(choicesOf(scope)[0]?.body.visitor_id).toBe(visitorId);
    expect((await storedChoice(old, site.origin))?.visitor_id).toBe(visitorId);
    expect(problems).toEqual([]);
  });

  it('retries a choice the service could not take, with the same event id, until it is recorded', async () => {
    const scope = publish();
    service.answer(scope, (index) => (index === 0 ? 503 : 201));
    const context = await newContext();
    // A browser without crypto.randomUUID (a page on plain http): ids still random UUIDs.
    await context.addInitScript(() => {
      Object.defineProperty((globalThis as any).Crypto.prototype, 'randomUUID', {
        value: undefined,
      });
    });
    const { page } = await visit(context, { scope });
    await page.getByRole('button', { name: 'Accept all' }).click();
    await expect.poll(() => choicesOf(scope).length, { timeout: budget(10_000) }).toBe(2);
    const [failed, retried] = choicesOf(scope);
    expect(failed?.status).toBe(503);
    expect(retried?.body).toEqual(failed?.body);
    expect(retried?.body.event_id).toMatch(uuidV4);
    expect(retried?.body.visitor_id).toMatch(uuidV4);
    await expect
      .poll(() => page.evaluate(() => (globalThis as any).Consentrix.consent().decision_id))
      .toBe(retried?.decisionId);
  });

  it('a settings button, once the visitor has chosen, on every page, in their language, reopens the preferences; none unless configured', async () => {
    const scope = publish((changes) => {
      const config = bilingualConfig(changes);
      return {
        ...config,
        layout: { ...config.layout, settings_button: 'bottom-left' },
        texts: {
          en: { ...config.texts.en, settings: 'Cookie settings' },
          th: { ...config.texts.th, settings: 'ตั้งค่าคุกกี้' },
        } as BannerConfig['texts'],
      };
    });
    const context = await newContext();
    const first = await visit(context, { scope, lang: 'th' });
    const settings = (page: Page) => page.getByRole('button', { name: 'ตั้งค่าคุกกี้' });
    await dialog(first.page).waitFor();
    // Not before a choice: the banner itself is the way to choose.
    expect(await settings(first.page).count()).toBe(0);
    await first.page.getByRole('button', { name: thaiTexts.reject_all }).click();
    await settings(first.page).waitFor();
    expect(await settings(first.page).getAttribute('lang')).toBe('th');
    const box = await settings(first.page).boundingBox();
    expect(box?.x).toBeLessThan(640);
    expect((box?.y ?? 0) + (box?.height ?? 0)).toBeGreaterThan(700);

    // The next page: no banner, the button again; it opens the preferences, and is gone while
    // they are open.
    const next = await visit(context, { scope, lang: 'th' });
    await settings(next.page).waitFor();
    expect(await dialog(next.page).count()).toBe(0);
    await settings(next.page).click();
    await next.page.getByRole('heading', { name: thaiTexts.preferences_title }).waitFor();
    expect(await settings(next.page).count()).toBe(0);
    await next.page.getByRole('button', { name: thaiTexts.close }).click();
    await settings(next.page).waitFor();
    expect([...first.problems, ...next.problems]).toEqual([]);

    // A configuration without it shows none after a choice.
    const plain = publish(bilingualConfig);
    const other = await visit(await newContext(), { scope: plain, lang: 'th' });
    await other.page.getByRole('button', { name: thaiTexts.reject_all }).click();
    await dialog(other.page).waitFor({ state: 'detached' });
    expect(
      await other.page
        .locator('[data-consentrix]')
        .evaluate((host) => host.shadowRoot?.querySelectorAll('.settings').length),
    ).toBe(0);
  });

  it('the preferences list each category’s declared cookies, fetched once when they open, in English and in Thai', async () => {
    const scope = publish((changes) => {
      const config = bilingualConfig(changes);
      return {
        ...config,
        texts: {
          en: { ...config.texts.en, declaration: 'Cookies used' },
          th: { ...config.texts.th, declaration: 'คุกกี้ที่ใช้' },
        } as BannerConfig['texts'],
      };
    });
    const fetched = service.declare(scope, {
      categories: [
        { key: 'necessary', cookies: [] },
        {
          key: 'analytics',
          cookies: [
            {
              name: '_ga',
              provider: 'Google',
              retention: '2 years',
              purpose: { en: 'Tells visitors apart', th: 'แยกแยะผู้เข้าชมแต่ละคน' },
            },
            { name: '_ga_*', provider: 'Google', retention: null, purpose: {} },
          ],
        },
      ],
    });
    const { page, problems } = await visit(await newContext(), { scope, lang: 'th' });
    await dialog(page).waitFor();
    // Nothing is fetched before the preferences open.
    expect(fetched()).toBe(0);
    await page.getByRole('button', { name: thaiTexts.preferences }).click();
    const list = page.getByText('คุกกี้ที่ใช้ (2)');
    await list.waitFor();
    expect(fetched()).toBe(1);
    await list.click();
    const items = page.locator('[data-consentrix] >> .cat li');
    await expect
      .poll(() => items.allInnerTexts())
      .toEqual(['_ga Google · 2 years\nแยกแยะผู้เข้าชมแต่ละคน', '_ga_* Google']);
    // Only the categories that list cookies have a list.
    expect(await page.locator('[data-consentrix] >> details').count()).toBe(1);
    await page.getByRole('button', { name: 'English' }).click();
    await page.getByText('Cookies used (2)').click();
    await expect
      .poll(() => items.first().innerText())
      .toBe('_ga Google · 2 years\nTells visitors apart');
    expect(fetched()).toBe(1);
    expect(problems).toEqual([]);
  });

  it('window.Consentrix: open() shows the preferences, consent() and onChange(fn) follow the choice', async () => {
    const scope = publish();
    const { page, problems } = await visit(await newContext(), { scope });
    await page.evaluate(() => {
      const { window } = globalThis as any;
      window.changes = [];
      window.stop = window.Consentrix.onChange((consent: unknown) => window.changes.push(consent));
    });
    const changes = () => page.evaluate(() => (globalThis as any).changes);
    await page.getByRole('button', { name: 'Reject all' }).click();
    await expect.poll(async () => (await changes()).length).toBe(2);
    await expect.poll(() => choicesOf(scope).length).toBe(1);
    const [chosen, recorded] = await changes();
    expect(chosen).toMatchObject({ method: 'reject-all', decision_id: null });
    expect(recorded).toEqual({ ...chosen, decision_id: choicesOf(scope)[0]?.decisionId });
    expect(await page.evaluate(() => (globalThis as any).Consentrix.consent())).toEqual(recorded);

    await page.evaluate(() => (globalThis as any).stop());
    await page.evaluate(() => (globalThis as any).Consentrix.open());
    await page.getByRole('heading', { name: englishTexts.preferences_title }).waitFor();
    await page.getByRole('switch', { name: 'Functional' }).check();
    await page.getByRole('button', { name: 'Save my choices' }).click();
    await expect.poll(() => ran(page)).toMatchObject({ functional: true });
    expect(await page.evaluate(() => (globalThis as any).Consentrix.consent().method)).toBe(
      'custom',
    );
    await expect.poll(() => choicesOf(scope).length).toBe(2);
    expect(await changes()).toHaveLength(2);
    expect(problems).toEqual([]);
  });

  it('as the back-office’s preview, takes no focus, ignores a stored choice, and a choice sets no cookie and sends nothing', async () => {
    let config = shopConfig();
    const scope = publish((changes) => {
      config = shopConfig({ ...changes, preview: true });
      return config;
    });
    const context = await newContext();
    // A valid choice of this very configuration, which a site's banner would apply unasked.
    const stored = encodeURIComponent(
      JSON.stringify({
        visitor_id: crypto.randomUUID(),
        configuration_id: config.configuration.id,
        fingerprint: config.configuration.fingerprint,
        decided_at: new Date().toISOString(),
        method: 'reject-all',
        decision_id: null,
        categories: Object.fromEntries(config.categories.map((c) => [c.key, c.required])),
      }),
    );
    await context.addCookies([{ name: 'consentrix_consent', value: stored, url: site.origin }]);
    // Counts the banner's requests where it makes them, so that none can still be on its way.
    await context.addInitScript(() => {
      const { window } = globalThis as any;
      const send = window.fetch;
      window.sent = 0;
      window.fetch = (...args: unknown[]) => {
        window.sent += 1;
        return send(...args);
      };
    });
    const { page, problems } = await visit(context, { scope });
    await dialog(page).waitFor();
    expect((await focused(page)).inBanner).toBe(false);
    await page.getByRole('button', { name: 'Accept all' }).click();
    await expect.poll(() => dialog(page).count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as any).Consentrix.consent().method)).toBe(
      'accept-all',
    );
    expect(await page.evaluate(() => (globalThis as any).sent)).toBe(0);
    expect((await page.context().cookies(site.origin)).map((c) => [c.name, c.value])).toEqual([
      ['consentrix_consent', stored],
    ]);
    expect(choicesOf(scope)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('speaks the page’s language, else the browser’s, else the default', async () => {
    const scope = publish(bilingualConfig);
    const cases: Array<[string, string, string]> = [
      ['th-TH', 'en-US', 'th'],
      ['de', 'th-TH', 'th'],
      ['fr', 'de-DE', 'en'],
    ];
    for (const [lang, browserLocale, expected] of cases) {
      const { page } = await visit(await newContext({ locale: browserLocale }), { scope, lang });
      await dialog(page).waitFor();
      expect(await dialog(page).getAttribute('lang'), `${lang} / ${browserLocale}`).toBe(expected);
      const title = expected === 'th' ? thaiTexts.title : englishTexts.title;
      expect(await dialog(page).getByRole('heading').textContent()).toBe(title);
    }
  });

  it('lets the visitor switch its language, each named in itself; the switches are kept and the choice records the language read', async () => {
    const scope = publish(bilingualConfig);
    // A Thai browser on a page that says English: the documented rule picks English.
    const context = await newContext({ locale: 'th-TH' });
    const { page, problems } = await visit(context, { scope, lang: 'en' });
    await page.getByRole('heading', { name: englishTexts.title }).waitFor();
    const thai = page.getByRole('button', { name: 'ไทย' });
    expect(await page.getByRole('button', { name: 'English' }).getAttribute('aria-pressed')).toBe(
      'true',
    );
    await page.getByRole('button', { name: englishTexts.preferences }).click();
    await page.getByRole('switch', { name: 'Analytics' }).check();
    await thai.click();
    await page.getByRole('heading', { name: thaiTexts.preferences_title }).waitFor();
    expect(await dialog(page).getAttribute('lang')).toBe('th');
    expect(await thai.getAttribute('aria-pressed')).toBe('true');
    expect(await page.getByRole('switch', { name: 'การวิเคราะห์' }).isChecked()).toBe(true);
    await page.getByRole('button', { name: thaiTexts.save }).click();
    await expect.poll(() => choicesOf(scope).length).toBe(1);
    expect(choicesOf(scope)[0]?.body).toMatchObject({
      locale: 'th',
      method: 'custom',
      categories: { analytics: true, marketing: false },
    });
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('speaks the language the site pins on its tag (data-locale) over the page’s and the browser’s; one it has no texts in is passed over', async () => {
    const scope = publish(bilingualConfig);
    const cases: Array<[string, string, string]> = [
      ['th', 'en', 'th'],
      ['th-TH', 'en', 'th'],
      ['en', 'th', 'en'],
      ['de', 'th', 'th'],
    ];
    for (const [locale, lang, expected] of cases) {
      const context = await newContext({ locale: 'en-US' });
      const { page, problems } = await visit(context, { scope, lang, locale });
      await dialog(page).waitFor();
      expect(await dialog(page).getAttribute('lang'), `${locale} on a ${lang} page`).toBe(expected);
      const title = expected === 'th' ? thaiTexts.title : englishTexts.title;
      expect(await dialog(page).getByRole('heading').textContent()).toBe(title);
      expect(problems).toEqual([]);
    }
  });

  it('in Thai, fits 390 and 320 px wide screens without sideways scrolling, as a bar and as a box', async () => {
    const bar = publish(bilingualConfig);
    const box = publish((changes) =>
      bilingualConfig({
        ...changes,
        layout: { ...shopConfig().layout, kind: 'box', position: 'center' },
      }),
    );
    for (const scope of [bar, box]) {
      const context = await newContext({ viewport: { width: 390, height: 844 } });
      const { page, problems } = await visit(context, { scope, lang: 'th' });
      await page.getByRole('heading', { name: thaiTexts.title }).waitFor();
      expect(await dialog(page).getAttribute('lang')).toBe('th');
      for (const layer of ['first layer', 'preferences']) {
        if (layer === 'preferences') {
          await page.getByRole('button', { name: thaiTexts.preferences }).click();
          await page.getByRole('heading', { name: thaiTexts.preferences_title }).waitFor();
        }
        for (const width of [390, 320]) {
          await page.setViewportSize({ width, height: 700 });
          // The banner follows the screen's size when the browser tells it, at its next frame.
          const fits = async () => {
            const fit = await overflow(page);
            return fit.sideways <= 0 && fit.left >= 0 && fit.right <= 0;
          };
          await expect.poll(fits, { message: `${scope} ${layer} at ${width} px` }).toBe(true);
        }
      }
      expect(problems).toEqual([]);
    }
  });

  /** The shop's banner as a centred box: the modal layout. */
  const centredBox = (changes: Partial<BannerConfig>) =>
    shopConfig({ ...changes, layout: { ...shopConfig().layout, kind: 'box', position: 'center' } });

  it('on a 390 px phone with a 560 px embed, the bar and a box stay on the screen, no wider than it, and their buttons can be tapped', async () => {
    const onScreen = (page: Page) =>
      page.evaluate(() => {
        const { document, window } = globalThis as any;
        const box = document
          .querySelector('[data-consentrix]')
          .shadowRoot.querySelector('[role=dialog]')
          .getBoundingClientRect();
        const screen = window.visualViewport;
        return {
          // The page is laid out wider than the screen: what made the bar too wide.
          pageWiderThanScreen: window.innerWidth > screen.width,
          left: box.left >= screen.offsetLeft - 0.5,
          right: box.right <= screen.offsetLeft + screen.width + 0.5,
          bottom: box.bottom <= screen.offsetTop + screen.height + 0.5,
        };
      });
    for (const make of [shopConfig, centredBox]) {
      const scope = publish(make);
      const context = await newContext({
        viewport: { width: 390, height: 844 },
        isMobile: true,
        hasTouch: true,
      });
      const { page, problems } = await visit(context, { scope, wide: true });
      await dialog(page).waitFor();
      expect(await onScreen(page)).toEqual({
        pageWiderThanScreen: true,
        left: true,
        right: true,
        bottom: true,
      });
      await page.getByRole('button', { name: 'Reject all' }).tap();
      await expect.poll(() => choicesOf(scope).length).toBe(1);
      expect(problems).toEqual([]);
    }
  });

  it('works by keyboard alone: Tab reaches the buttons and stays in the modal dialog, the focus shows, and returns where it was', async () => {
    const scope = publish(centredBox);
    const { page, problems } = await visit(await newContext(), { scope });
    await dialog(page).waitFor();
    expect((await focused(page)).inBanner).toBe(true);

    const seen: Array<string | null> = [];
    for (let step = 0; step < 8; step += 1) {
      await page.keyboard.press('Tab');
      const now = await focused(page);
      expect(now.inBanner, `Tab ${step + 1} left the dialog`).toBe(true);
      expect(now.outline, `no visible focus on ${now.text}`).not.toBe('none');
      seen.push(now.action ?? now.tag);
    }
    // Link, Accept all, Reject all, Preferences, and round again.
    expect(seen).toEqual([
      'a',
      'accept-all',
      'reject-all',
      'open',
      'a',
      'accept-all',
      'reject-all',
      'open',
    ]);
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Shift+Tab');
    expect((await focused(page)).action).toBe('accept-all');
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Shift+Tab');
    expect((await focused(page)).action).toBe('open');

    // The panel: Enter opens it, Tab goes round its controls, Escape goes back.
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: englishTexts.preferences_title }).waitFor();
    const panel: string[] = [];
    for (let step = 0; step < 8; step += 1) {
      await page.keyboard.press('Tab');
      const now = await focused(page);
      expect(now.inBanner).toBe(true);
      panel.push(now.action ?? now.id);
    }
    expect(panel).toEqual([
      'close',
      'cx-c-analytics',
      'cx-c-marketing',
      'cx-c-functional',
      'cx-c-personalization',
      'cx-c-loyalty',
      'save',
      'close',
    ]);
    await page.keyboard.press('Escape');
    await page.getByRole('heading', { name: englishTexts.title }).waitFor();
    expect((await focused(page)).inBanner).toBe(true);

    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect((await focused(page)).action).toBe('accept-all');
    await page.keyboard.press('Enter');
    await expect.poll(() => dialog(page).count()).toBe(0);
    // Focus went back to where it was before the dialog opened: the page's body.
    expect((await focused(page)).tag).toBe('body');

    // The site's own "Cookie settings" button reopens the preferences; leaving gives the focus
    // back to that button.
    for (let step = 0; step < 5 && (await focused(page)).id !== 'settings'; step += 1) {
      await page.keyboard.press('Tab');
    }
    expect((await focused(page)).id).toBe('settings');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: englishTexts.preferences_title }).waitFor();
    expect((await focused(page)).inBanner).toBe(true);
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog(page).count()).toBe(0);
    expect((await focused(page)).id).toBe('settings');
    expect(problems).toEqual([]);
  });

  it('a bar is not modal: the page stays reachable by keyboard and pointer; a centred box covers the page and is modal', async () => {
    const bar = publish();
    const { page, problems } = await visit(await newContext(), { scope: bar });
    await dialog(page).waitFor();
    expect(await dialog(page).getAttribute('aria-modal')).toBeNull();
    expect((await focused(page)).inBanner).toBe(true);
    // Tab from the bar's last button goes on to the page, and Shift+Tab back into the bar.
    const actions: Array<string | null> = [];
    for (let step = 0; step < 6 && (await focused(page)).inBanner; step += 1) {
      await page.keyboard.press('Tab');
      const now = await focused(page);
      actions.push(now.inBanner ? (now.action ?? now.tag) : 'page');
    }
    expect(actions).toEqual(['a', 'accept-all', 'reject-all', 'open', 'page']);
    // The page's own controls work while the bar shows.
    await page.locator('#settings').focus();
    expect((await focused(page)).id).toBe('settings');
    const onPage = (scope: Page) =>
      scope.evaluate(() => {
        const { document } = globalThis as any;
        return document.elementFromPoint(20, 20)?.closest('[data-consentrix]') === null;
      });
    expect(await onPage(page)).toBe(true);

    const box = publish(centredBox);
    const modal = await visit(await newContext(), { scope: box });
    await dialog(modal.page).waitFor();
    expect(await dialog(modal.page).getAttribute('aria-modal')).toBe('true');
    // The veil covers the page: a pointer at its corner reaches the banner, not the page.
    expect(await onPage(modal.page)).toBe(false);
    await modal.page.getByRole('button', { name: 'Reject all' }).click();
    await expect.poll(() => onPage(modal.page)).toBe(true);
    expect(problems).toEqual([]);
    expect(modal.problems).toEqual([]);
  });

  it('axe finds nothing wrong with the first layer or the preferences; Accept all and Reject all look alike', async () => {
    const scope = publish();
    const { page, problems } = await visit(await newContext(), { scope });
    await dialog(page).waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);

    const look = async (name: string) => {
      const button = page.getByRole('button', { name });
      return {
        box: await button.boundingBox(),
        style: await button.evaluate((element) => {
          const style = (globalThis as any).getComputedStyle(element);
          return [style.backgroundColor, style.color, style.fontSize, style.fontWeight];
        }),
      };
    };
    const accept = await look('Accept all');
    const reject = await look('Reject all');
    expect(reject.style).toEqual(accept.style);
    // Grid columns of one width, to the layout's subpixel rounding.
    expect(reject.box?.width).toBeCloseTo(accept.box?.width ?? 0, 0);
    expect(reject.box?.height).toBeCloseTo(accept.box?.height ?? 0, 0);

    await page.getByRole('button', { name: 'Preferences' }).click();
    await page.getByRole('heading', { name: englishTexts.preferences_title }).waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('an A/B variant’s texts and colours show to the visitors it draws, and their choice says which', async () => {
    const scope = publish((changes) => ({
      ...shopConfig(changes),
      variants: [
        {
          key: 'brief',
          weight: 100,
          texts: { en: { title: 'Cookies, briefly' } },
          layout: { colors: { accent: '#8a1c1c' } },
        },
      ],
    }));
    const { page, problems } = await visit(await newContext(), { scope });
    await dialog(page).getByText('Cookies, briefly').waitFor();
    const accent = await page
      .getByRole('button', { name: 'Accept all' })
      .evaluate((element) => (globalThis as any).getComputedStyle(element).backgroundColor);
    expect(accent).toBe('rgb(138, 28, 28)');
    await page.getByRole('button', { name: 'Reject all' }).click();
    await expect.poll(() => choicesOf(scope).length).toBe(1);
    expect(choicesOf(scope)[0]?.body).toMatchObject({ method: 'reject-all', variant: 'brief' });
    expect(problems).toEqual([]);
  });

  it('Reject all as a link or an outlined button is smaller or paler than Accept all, and only in the preferences it is not on the first layer: what the review of an A/B test refuses', async () => {
    const look = async (page: Page, name: string) => {
      const button = page.getByRole('button', { name, exact: true });
      return {
        box: await button.boundingBox(),
        background: await button.evaluate(
          (element) => (globalThis as any).getComputedStyle(element).backgroundColor,
        ),
      };
    };
    const withLayout = (layout: Partial<BannerConfig['layout']>) =>
      publish((changes) => {
        const config = shopConfig(changes);
        return { ...config, layout: { ...config.layout, ...layout } };
      });
    const link = await visit(await newContext(), { scope: withLayout({ reject_style: 'link' }) });
    await dialog(link.page).waitFor();
    const accept = await look(link.page, 'Accept all');
    const asLink = await look(link.page, 'Reject all');
    expect(asLink.box?.height ?? 0).toBeLessThan((accept.box?.height ?? 0) - 10);
    expect(asLink.background).not.toBe(accept.background);

    const outlined = await visit(await newContext(), {
      scope: withLayout({ reject_style: 'outlined' }),
    });
    await dialog(outlined.page).waitFor();
    expect((await look(outlined.page, 'Reject all')).background).toBe('rgba(0, 0, 0, 0)');

    const hidden = await visit(await newContext(), {
      scope: withLayout({ reject_layer: 'preferences' }),
    });
    await dialog(hidden.page).waitFor();
    expect(await hidden.page.getByRole('button', { name: 'Reject all' }).count()).toBe(0);
    for (const visited of [link, outlined, hidden]) expect(visited.problems).toEqual([]);
  });

  it.each([
    ['with a nonce for styles', true],
    ['that allows styles only by origin (no nonce, nothing inline)', 'styles-by-origin'],
  ] as const)(
    'under a strict CSP %s, violates nothing, is styled, keeps the page where it was, and runs the held tags',
    async (_name, csp) => {
      const scope = publish();
      const context = await newContext();
      await context.addInitScript(() => {
        const { document, window } = globalThis as any;
        window.violations = [];
        document.addEventListener('securitypolicyviolation', (event: any) =>
          window.violations.push(`${event.violatedDirective} ${event.blockedURI}`),
        );
      });
      const { page, problems } = await visit(context, { scope, csp });
      await dialog(page).waitFor();
      // Unstyled, the dialog sat at the page's end and taking the focus scrolled the page there.
      expect(await page.evaluate(() => (globalThis as any).window.scrollY)).toBe(0);
      const styles = await dialog(page).evaluate((element) => {
        const { getComputedStyle } = globalThis as any;
        const button = element.querySelector('[data-consentrix-action="accept-all"]');
        return {
          position: getComputedStyle(element).position,
          background: getComputedStyle(element).backgroundColor,
          button: getComputedStyle(button).backgroundColor,
        };
      });
      expect(styles).toEqual({
        position: 'fixed',
        background: 'rgb(255, 255, 255)',
        button: 'rgb(11, 87, 208)',
      });
      await expect.poll(() => lateTagHeld(page)).toBe(1);
      await page.getByRole('button', { name: 'Accept all' }).click();
      await expect
        .poll(() => ran(page))
        .toEqual({
          analytics: true,
          marketing: true,
          functional: true,
          inline_analytics: true,
          inline_personalization: true,
          inline_loyalty: true,
          inline_social: false,
        });
      await expect.poll(() => choicesOf(scope).length).toBe(1);
      await expect
        .poll(() => page.evaluate(() => (globalThis as any).Consentrix.consent().decision_id))
        .toBe(choicesOf(scope)[0]?.decisionId);
      expect(await page.evaluate(() => (globalThis as any).violations)).toEqual([]);
      expect(problems).toEqual([]);
    },
  );
});
