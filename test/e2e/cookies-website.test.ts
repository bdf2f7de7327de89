/**
 * Cookie consent from end to end: the real `serve`, a banner made and published with the command
 * line, and a fixture website of another origin (an analytics tag, a marketing tag, a tag added
 * after load, a `gtag` stub and `dataLayer`) in real Chromium. What runs before and after each
 * kind of choice, what is recorded (in the decision log, with a receipt `verify-receipt` checks
 * offline), what a page on an origin the system does not list may record (nothing), when a
 * visitor is asked again, and the Thai banner at phone width, with axe.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, launchChromium, watch } from '../backoffice/browser.js';
import {
  consentCommands,
  consentEvents,
  cookie,
  overflow,
  ran,
  storedChoice,
} from '../cookies/banner-page.js';
import { type FixtureSite, startFixtureSite } from '../cookies/fixture-site.js';
import {
  expectJsonObject,
  freePort,
  makeTempStore,
  type Provisioned,
  provision,
  runCli,
  type ServerProcess,
  serverEnv,
  showResult,
  startServer,
  type TempStore,
} from '../helpers/process.js';
import { journeyStore } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';

/** This journey's store (see `journeyStore`). */
const journey = journeyStore('postgres');

const allDenied = {
  ad_storage: 'denied',
  ad_user_data: 'denied',
  ad_personalization: 'denied',
  analytics_storage: 'denied',
  functionality_storage: 'denied',
  personalization_storage: 'denied',
  security_storage: 'granted',
};

describe.each(journey)('a website’s cookie banner served by the service, on $name', (testStore) => {
  describe.sequential('in Chromium', { timeout: budget(60_000) }, () => {
    let store: TempStore;
    let server: ServerProcess;
    let p: Provisioned;
    let site: FixtureSite;
    let elsewhere: FixtureSite;
    let browser: Browser;
    let scope = '';
    /** The cookies of the first visitor, who accepted all. */
    let firstVisitor: Awaited<ReturnType<BrowserContext['cookies']>> = [];
    const contexts: BrowserContext[] = [];
    const cli = (...args: string[]) => runCli(args, server.env, { cwd: store.dir });

    beforeAll(async () => {
      store = await makeTempStore(testStore);
      const port = await freePort();
      // Visitors' regions come from the headers a CDN in front would set (Cloudflare's names).
      const env = {
        ...serverEnv(store, port, 'warn'),
        VISITOR_COUNTRY_HEADER: 'CF-IPCountry',
        VISITOR_SUBDIVISION_HEADER: 'CF-Region-Code',
      };
      p = await provision(env);
      server = await startServer({ store, port, env });
      site = await startFixtureSite(server.baseUrl);
      elsewhere = await startFixtureSite(server.baseUrl);
      const system = expectJsonObject(
        await cli(
          'cookie',
          'system',
          'create',
          '--tenant',
          p.alias,
          '--name',
          'Shop',
          '--origin',
          site.origin,
        ),
      );
      scope = String(system.scope);
      expectJsonObject(
        await cli(
          'cookie',
          'create',
          '--tenant',
          p.alias,
          '--system',
          scope,
          '--name',
          'Banner',
          '--categories',
          'analytics,marketing,functional,personalization',
        ),
      );
      expectJsonObject(await cli('cookie', 'publish', '--tenant', p.alias, '--system', scope));
      browser = await launchChromium();
    });
    afterAll(async () => {
      for (const context of contexts) await context.close().catch(() => {});
      await browser?.close();
      await site?.close();
      await elsewhere?.close();
      try {
        await server?.stop(budget(10_000));
      } finally {
        await store?.remove();
      }
    });

    async function newContext(options: BrowserContextOptions = {}): Promise<BrowserContext> {
      const context = await browser.newContext({
        viewport: { width: 1280, height: 800 },
        ...options,
      });
      contexts.push(context);
      return context;
    }

    /** A page of `on` in `context`, and the choices it POSTs to the service, with their answers. */
    async function visit(
      context: BrowserContext,
      on: FixtureSite = site,
      lang?: string,
      csp = false,
      system = scope,
      customerToken?: string,
    ) {
      const page = await context.newPage();
      page.setDefaultTimeout(budget(5_000));
      const console = watch(page);
      const posts: number[] = [];
      const sent: string[] = [];
      const failed: string[] = [];
      const choice = (request: { method(): string; url(): string }) =>
        request.method() === 'POST' && /\/cookies\/v1\/[^/]+\/decisions$/.test(request.url());
      page.on('request', (request) => {
        if (choice(request)) sent.push(request.url());
      });
      page.on('requestfailed', (request) => {
        if (choice(request)) failed.push(request.failure()?.errorText ?? 'failed');
      });
      page.on('response', (response) => {
        if (choice(response.request())) posts.push(response.status());
      });
      await page.goto(
        on.page({
          scope: system,
          csp,
          ...(lang ? { lang } : {}),
          ...(customerToken ? { customerToken } : {}),
        }),
      );
      return { page, posts, sent, failed, problems: console.problems };
    }

    const dialog = (page: Page) => page.getByRole('dialog');
    const lateTagHeld = (page: Page) =>
      page
        .locator('script[data-consentrix-category="functional"][data-consentrix-blocked="true"]')
        .count();

    /** The choices the service recorded for the system, as `cookie decisions` lists them. */
    async function recorded(system = scope): Promise<Record<string, any>[]> {
      const result = await cli('cookie', 'decisions', '--tenant', p.alias, '--system', system);
      expect(result.code, showResult(result)).toBe(0);
      return result.stdout
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line));
    }

    const api = (path: string) =>
      fetch(`${server.baseUrl}${path}`, {
        headers: { 'x-system-api-key': p.apiKey.key },
        signal: AbortSignal.timeout(budget(15_000)),
      });

    it('before a choice runs and fetches no held tag, Consent Mode’s defaults first; Accept all runs them, stores and pushes the four booleans, and records one choice with a receipt that verifies offline', async () => {
      const context = await newContext();
      const before = site.tagRequests();
      const { page, posts, problems } = await visit(context);
      await dialog(page).waitFor();
      await expect.poll(() => lateTagHeld(page)).toBe(1);
      expect(Object.values(await ran(page))).not.toContain(true);
      expect(site.tagRequests()).toEqual(before);
      const commands = await consentCommands(page);
      expect(commands[0]).toEqual(['consent', 'default', { ...allDenied, wait_for_update: 500 }]);

      await page.getByRole('button', { name: 'Accept all' }).click();
      await expect
        .poll(() => ran(page))
        .toMatchObject({ analytics: true, marketing: true, functional: true });
      expect(site.tagRequests()).toEqual({
        analytics: before.analytics + 1,
        marketing: before.marketing + 1,
        functional: before.functional + 1,
      });
      const categories = await cookie(context, site.origin, 'consentrix_categories');
      expect(JSON.parse(decodeURIComponent(String(categories?.value)))).toEqual({
        analytics: true,
        functional: true,
        marketing: true,
        personalization: true,
      });
      expect((await consentEvents(page)).at(-1)).toEqual({
        event: 'consentrix_consent_update',
        consentrix_analytics: true,
        consentrix_marketing: true,
        consentrix_functional: true,
        consentrix_personalization: true,
      });
      await expect
        .poll(async () => (await storedChoice(context, site.origin))?.decision_id)
        .toEqual(expect.any(String));
      const decisionId = String((await storedChoice(context, site.origin))?.decision_id);
      expect(posts).toEqual([201]);
      const rows = await recorded();
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        decision_id: decisionId,
        method: 'accept-all',
        origin: site.origin,
        categories: {
          necessary: true,
          analytics: true,
          marketing: true,
          functional: true,
          personalization: true,
        },
      });

      const receipt = await api(`/api/v1/cookie-decisions/${decisionId}/receipt?wait=true`);
      expect(receipt.status).toBe(200);
      const file = join(store.dir, 'cookie-receipt.json');
      writeFileSync(file, await receipt.text());
      const key = (
        (await (await api('/api/v1/log/key')).json()) as {
          data: { verifier_key: string };
        }
      ).data.verifier_key;
      const verified = await runCli(['verify-receipt', file, '--key', key], {});
      expect(verified.code, showResult(verified)).toBe(0);
      expect(JSON.parse(verified.stdout)).toMatchObject({ valid: true, kind: 'cookie-decision' });
      expect(problems).toEqual([]);
      firstVisitor = await context.cookies(site.origin);

      // The next page view: no banner, nothing sent, the stored choice applied again.
      const again = await visit(context);
      await again.page.waitForLoadState('load');
      await expect.poll(() => ran(again.page)).toMatchObject({ analytics: true, marketing: true });
      expect(await dialog(again.page).count()).toBe(0);
      expect((await consentEvents(again.page)).length).toBe(1);
      expect(again.posts).toEqual([]);
      expect(await recorded()).toHaveLength(1);
    });

    it('Reject all runs nothing held and records reject-all; a custom choice runs what it grants', async () => {
      const rejecting = await visit(await newContext());
      await rejecting.page.getByRole('button', { name: 'Reject all' }).click();
      await expect.poll(() => rejecting.posts).toEqual([201]);
      expect(Object.values(await ran(rejecting.page))).not.toContain(true);
      expect((await recorded()).at(-1)).toMatchObject({
        method: 'reject-all',
        categories: { necessary: true, analytics: false, marketing: false },
      });

      const choosing = await visit(await newContext());
      await choosing.page.getByRole('button', { name: 'Preferences' }).click();
      await choosing.page.getByRole('switch', { name: 'Analytics' }).check();
      await choosing.page.getByRole('button', { name: 'Save my choices' }).click();
      await expect.poll(() => choosing.posts).toEqual([201]);
      await expect.poll(() => ran(choosing.page)).toMatchObject({ analytics: true });
      expect((await ran(choosing.page)).marketing).toBe(false);
      expect((await recorded()).at(-1)).toMatchObject({
        method: 'custom',
        categories: {
          analytics: true,
          marketing: false,
          functional: false,
          personalization: false,
        },
      });
    });

    it('Global Privacy Control starts marketing and personalization denied, says so, and Accept all is recorded as gpc', async () => {
      const context = await newContext({ extraHTTPHeaders: { 'Sec-GPC': '1' } });
      await context.addInitScript(() => {
        Object.defineProperty((globalThis as any).navigator, 'globalPrivacyControl', {
          value: true,
        });
      });
      const { page, posts } = await visit(context);
      await expect(dialog(page).textContent()).resolves.toContain('Global Privacy Control');
      await page.getByRole('button', { name: 'Accept all' }).click();
      await expect.poll(() => posts).toEqual([201]);
      await expect.poll(() => ran(page)).toMatchObject({ analytics: true });
      expect((await ran(page)).marketing).toBe(false);
      expect((await recorded()).at(-1)).toMatchObject({
        method: 'gpc',
        categories: { analytics: true, functional: true, marketing: false, personalization: false },
      });
    });

    it('under the site’s strict Content Security Policy the banner is styled, records the choice, and breaks no rule', async () => {
      const context = await newContext();
      await context.addInitScript(() => {
        const { document, window } = globalThis as any;
        window.violations = [];
        document.addEventListener('securitypolicyviolation', (event: any) =>
          window.violations.push(`${event.violatedDirective} ${event.blockedURI}`),
        );
      });
      const { page, posts, problems } = await visit(context, site, undefined, true);
      await dialog(page).waitFor();
      const position = await dialog(page).evaluate(
        (element) => (globalThis as any).getComputedStyle(element).position,
      );
      expect(position).toBe('fixed');
      await page.getByRole('button', { name: 'Accept all' }).click();
      await expect.poll(() => posts).toEqual([201]);
      await expect.poll(() => ran(page)).toMatchObject({ analytics: true, marketing: true });
      expect(await page.evaluate(() => (globalThis as any).violations)).toEqual([]);
      expect(problems).toEqual([]);
    });

    it('a page on an origin the system does not list loads the banner, but its choice is refused and nothing is stored', async () => {
      const before = (await recorded()).length;
      const { page, posts, sent, failed } = await visit(await newContext(), elsewhere);
      await page.getByRole('button', { name: 'Accept all' }).click();
      // The service answers 403 without Access-Control-Allow-Origin: the page cannot read it.
      await expect.poll(() => failed.length).toBe(1);
      expect(sent).toHaveLength(1);
      expect(posts).toEqual([]);
      expect((await recorded()).length).toBe(before);
    });

    it('a new publication that adds a category asks the visitor again', async () => {
      // The first visitor, in a browser with an empty cache (the script is cached five minutes).
      const same = await newContext();
      await same.addCookies(firstVisitor);
      const before = await visit(same);
      await before.page.waitForLoadState('load');
      expect(await dialog(before.page).count()).toBe(0);

      expectJsonObject(
        await cli(
          'cookie',
          'create',
          '--tenant',
          p.alias,
          '--system',
          scope,
          '--name',
          'Banner with loyalty',
          '--categories',
          'analytics,marketing,functional,personalization,loyalty',
        ),
      );
      expectJsonObject(await cli('cookie', 'publish', '--tenant', p.alias, '--system', scope));
      // Every instance serves a publication within a second.
      await expect
        .poll(async () => (await fetch(`${server.baseUrl}/cookies/v1/${scope}/banner.js`)).text())
        .toContain('"loyalty"');

      const later = await newContext();
      await later.addCookies(firstVisitor);
      const after = await visit(later);
      await dialog(after.page).waitFor();
      expect(await dialog(after.page).count()).toBe(1);
    });

    /**
     * A browser behind a CDN that says where it is: the CDN adds its headers to the requests that
     * reach the service (the banner script and the choice), not the page.
     */
    async function fromRegion(headers: Record<string, string>): Promise<BrowserContext> {
      const context = await newContext();
      await context.route(`${server.baseUrl}/**`, (route) =>
        route.continue({ headers: { ...route.request().headers(), ...headers } }),
      );
      return context;
    }

    it('a visitor from Thailand gets the opt-in rule and one from California the opt-out one, by the CDN’s headers; each choice records the region, in its receipt too', async () => {
      const system = expectJsonObject(
        await cli(
          'cookie',
          'system',
          'create',
          '--tenant',
          p.alias,
          '--name',
          'Regional shop',
          '--origin',
          site.origin,
        ),
      );
      const regional = String(system.scope);
      const draft = expectJsonObject(
        await cli(
          'cookie',
          'create',
          '--tenant',
          p.alias,
          '--system',
          regional,
          '--name',
          'Draft',
          '--categories',
          'analytics,marketing,functional,personalization',
        ),
      );
      const file = join(store.dir, 'regional.json');
      writeFileSync(
        file,
        JSON.stringify({
          ...(draft.content as object),
          mode: 'opt-in',
          regions: [
            { codes: ['TH', 'EEA', 'GB'], mode: 'opt-in' },
            { codes: ['US-CA'], mode: 'opt-out' },
          ],
        }),
      );
      expectJsonObject(
        await cli(
          'cookie',
          'create',
          '--tenant',
          p.alias,
          '--system',
          regional,
          '--name',
          'By region',
          '--content-file',
          file,
        ),
      );
      expectJsonObject(await cli('cookie', 'publish', '--tenant', p.alias, '--system', regional));
      const script = await fetch(`${server.baseUrl}/cookies/v1/${regional}/banner.js`, {
        headers: { 'cf-ipcountry': 'US', 'cf-region-code': 'CA' },
      });
      expect(script.headers.get('vary')).toBe('Sec-GPC, cf-ipcountry, cf-region-code');
      expect(script.headers.get('cache-control')).toBe(
        'public, max-age=240, stale-while-revalidate=60',
      );

      const visitFrom = async (headers: Record<string, string>) =>
        visit(await fromRegion(headers), site, undefined, false, regional);
      /** Nothing optional runs before a choice: the late tag waits, held. */
      const optIn = async (page: Page) => {
        await dialog(page).waitFor();
        await expect.poll(() => lateTagHeld(page)).toBe(1);
        expect(Object.values(await ran(page))).not.toContain(true);
      };

      // Thailand: nothing optional before a choice.
      const thai = await visitFrom({ 'cf-ipcountry': 'TH' });
      await optIn(thai.page);
      await thai.page.getByRole('button', { name: 'Accept all' }).click();
      await expect.poll(() => thai.posts).toEqual([201]);

      // California: the tags run before any choice; the notice still offers Reject all.
      const californian = await visitFrom({ 'cf-ipcountry': 'US', 'cf-region-code': 'CA' });
      await dialog(californian.page).waitFor();
      await expect
        .poll(() => ran(californian.page))
        .toMatchObject({ analytics: true, marketing: true });
      expect(californian.posts).toEqual([]);
      await californian.page.getByRole('button', { name: 'Reject all' }).click();
      await expect.poll(() => californian.posts).toEqual([201]);

      // Elsewhere in the United States: the default rule, opt-in.
      const washington = await visitFrom({ 'cf-ipcountry': 'US', 'cf-region-code': 'WA' });
      await optIn(washington.page);

      const rows = await recorded(regional);
      expect(rows.map((row) => [row.method, row.region])).toEqual([
        ['accept-all', 'TH'],
        ['reject-all', 'US-CA'],
      ]);
      const receipt = await api(
        `/api/v1/cookie-decisions/${rows[1]?.decision_id}/receipt?wait=true`,
      );
      expect(receipt.status).toBe(200);
      const body = await receipt.text();
      expect(JSON.parse(body).data.opening.region).toBe('US-CA');
      const saved = join(store.dir, 'regional-receipt.json');
      writeFileSync(saved, body);
      const key = (
        (await (await api('/api/v1/log/key')).json()) as { data: { verifier_key: string } }
      ).data.verifier_key;
      const verified = await runCli(['verify-receipt', saved, '--key', key], {});
      expect(verified.code, showResult(verified)).toBe(0);
      // The region is in the evidence the leaf commits to: another one does not open it.
      writeFileSync(saved, body.replace('"region":"US-CA"', '"region":"US-WA"'));
      const tampered = await runCli(['verify-receipt', saved, '--key', key], {});
      expect(tampered.code).not.toBe(0);
      expect(tampered.stdout + tampered.stderr).toContain('evidence');
      const listed = (await (await api(`/api/v1/cookie-decisions?system=${regional}`)).json()) as {
        data: { decisions: Array<{ region?: string }> };
      };
      expect(listed.data.decisions.map((d) => d.region)).toEqual(['US-CA', 'TH']);
      for (const visited of [thai, californian, washington]) expect(visited.problems).toEqual([]);
    });

    it('a signed-in visitor’s choice is the customer’s: in their evidence pack, which verifies offline, and applied on their other device without asking', async () => {
      const customer = 'ploy.signed-in@example.test';
      /** What the site's backend asks for a visitor it has signed in. */
      const tokenFor = async (who: string) => {
        const response = await fetch(
          `${server.baseUrl}/api/v1/customers/${encodeURIComponent(who)}/cookie-tokens`,
          {
            method: 'POST',
            headers: { 'x-system-api-key': p.apiKey.key, 'content-type': 'application/json' },
            body: JSON.stringify({ system: scope }),
            signal: AbortSignal.timeout(budget(15_000)),
          },
        );
        expect(response.status).toBe(201);
        return ((await response.json()) as { data: { token: string } }).data.token;
      };

      // The laptop: signed in, rejects all.
      const laptop = await newContext();
      const first = await visit(laptop, site, undefined, false, scope, await tokenFor(customer));
      await first.page.getByRole('button', { name: 'Reject all' }).click();
      await expect.poll(() => first.posts).toEqual([201]);
      await expect
        .poll(async () => (await storedChoice(laptop, site.origin))?.decision_id)
        .toEqual(expect.any(String));
      const rejected = String((await storedChoice(laptop, site.origin))?.decision_id);
      const listed = (await (
        await api(`/api/v1/cookie-decisions?customer_id=${encodeURIComponent(customer)}`)
      ).json()) as { data: { decisions: Array<{ decision_id: string; signed_in?: boolean }> } };
      expect(listed.data.decisions).toMatchObject([{ decision_id: rejected, signed_in: true }]);

      // The customer's evidence pack holds it, and `verify-receipt --pack` accepts the pack.
      const pack = await api(`/api/v1/customers/${encodeURIComponent(customer)}/evidence`);
      expect(pack.status).toBe(200);
      const zip = Buffer.from(await pack.arrayBuffer());
      expect(Object.keys(unzipSync(zip))).toContain(`records/cookie-decisions/${rejected}.json`);
      const packFile = join(store.dir, 'signed-in-pack.zip');
      writeFileSync(packFile, zip);
      const key = (
        (await (await api('/api/v1/log/key')).json()) as { data: { verifier_key: string } }
      ).data.verifier_key;
      const checked = await runCli(['verify-receipt', '--pack', packFile, '--key', key], {});
      expect(checked.code, showResult(checked)).toBe(0);
      expect(JSON.parse(checked.stdout)).toMatchObject({
        valid: true,
        customer_id: customer,
        verified: { 'cookie-decisions': 1 },
      });

      // The phone: a fresh browser, signed in as the same customer. No banner, nothing held runs,
      // nothing new recorded: the laptop's choice is this device's, with its decision id.
      const phone = await newContext();
      const second = await visit(phone, site, undefined, false, scope, await tokenFor(customer));
      await expect
        .poll(async () => (await storedChoice(phone, site.origin))?.decision_id)
        .toBe(rejected);
      expect(await dialog(second.page).count()).toBe(0);
      expect(
        await second.page.evaluate(() => (globalThis as any).Consentrix.consent()),
      ).toMatchObject({
        decision_id: rejected,
        method: 'reject-all',
        categories: { necessary: true, analytics: false, marketing: false },
      });
      await expect.poll(() => lateTagHeld(second.page)).toBe(1);
      expect(Object.values(await ran(second.page))).not.toContain(true);
      expect(second.posts).toEqual([]);

      // On the phone the customer changes their mind; the laptop's next page follows.
      await second.page.evaluate(() => (globalThis as any).Consentrix.open());
      await second.page.getByRole('switch', { name: 'Analytics' }).check();
      await second.page.getByRole('button', { name: 'Save my choices' }).click();
      await expect.poll(() => second.posts).toEqual([201]);
      const again = await visit(laptop, site, undefined, false, scope, await tokenFor(customer));
      await expect.poll(() => ran(again.page)).toMatchObject({ analytics: true });
      expect((await ran(again.page)).marketing).toBe(false);
      expect((await storedChoice(laptop, site.origin))?.method).toBe('custom');
      expect(again.posts).toEqual([]);

      // A visitor no one signed in is still asked.
      const stranger = await visit(await newContext());
      await dialog(stranger.page).waitFor();
      for (const visited of [first, second, again, stranger]) expect(visited.problems).toEqual([]);
    });

    it('speaks Thai on a Thai page at phone width, fits 320 px, and axe finds nothing, with the banner and with its preferences open', async () => {
      for (const width of [390, 320]) {
        const { page, problems } = await visit(
          await newContext({ viewport: { width, height: 800 } }),
          site,
          'th',
        );
        await dialog(page).waitFor();
        expect(await dialog(page).textContent()).toContain('เราใช้คุกกี้');
        expect(await page.getByRole('button', { name: 'ยอมรับทั้งหมด' }).count()).toBe(1);
        expect((await overflow(page)).sideways).toBeLessThanOrEqual(0);
        expect(await accessibilityViolations(page), `axe at ${width} px`).toEqual([]);
        await page.getByRole('button', { name: 'ตั้งค่า' }).click();
        await page.getByRole('switch').first().waitFor();
        expect(await accessibilityViolations(page), `axe, preferences, ${width} px`).toEqual([]);
        expect(problems).toEqual([]);
      }
    });
  });
});
