import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capture, launchChromium, signInAs, watch } from '../backoffice/browser.js';
import {
  callServer,
  expectJsonObject,
  makeTempStore,
  runCli,
  type ServerProcess,
  startServer,
  type TempStore,
} from '../helpers/process.js';
import { journeyStore } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';

/** This journey's store (see `journeyStore`). */
const journey = journeyStore('sqlite');

const admin = { email: 'ops@siam.example', password: 'siam bank password 1' };
const thai = '<p>ธนาคารเก็บที่อยู่อีเมลและหมายเลขโทรศัพท์ของท่าน</p>';
const english = '<p>The bank keeps your e-mail address and phone number.</p>';

/** Bangkok keeps UTC+7 all year: its wall time of an instant, as a datetime-local field has it. */
const bangkokWallTime = (instant: number) =>
  new Date(instant + 7 * 3_600_000).toISOString().slice(0, 19);

/**
 * A Thai bank in Chromium, on the real server: a release written in Thai with an English tab,
 * reviewed locale by locale, approved to go live a few seconds later in Bangkok time; the API
 * keeps answering version 1 until then and version 2 after, in the locale asked for; the
 * Decisions page filters by the locale of the text each customer saw.
 */
describe.each(journey)(
  'a release in Thai and English, scheduled, in Chromium, on $name',
  (testStore) => {
    describe.sequential('write, review, schedule, go live, browse', {
      timeout: budget(60_000),
    }, () => {
      let store: TempStore;
      let server: ServerProcess;
      let browser: Browser;
      let page: Page;
      let problems: string[] = [];
      let apiKey = '';
      let goLive = 0;
      const url = (path: string) => `${server.baseUrl}${path}`;
      const shot = (name: string) => capture(page, `locales-${testStore.name}-${name}`);
      const cli = (...args: string[]) => runCli(args, server.env).then(expectJsonObject);
      const api = (path: string, init: RequestInit = {}, headers: Record<string, string> = {}) =>
        callServer(server, { 'x-system-api-key': apiKey, ...headers }, path, init);
      const latest = async (locale: string) =>
        (
          (await (
            await api(`/api/v1/consent-templates/privacy/latest?locale=${locale}`)
          ).json()) as { data: Record<string, string> }
        ).data;

      beforeAll(async () => {
        store = await makeTempStore(testStore);
        server = await startServer({ store });
        await cli(
          'tenant',
          'create',
          '--alias',
          'siam',
          '--email',
          admin.email,
          '--password',
          admin.password,
        );
        await cli(
          'template',
          'create',
          '--tenant',
          'siam',
          '--code',
          'privacy',
          '--name',
          'Privacy notice',
          '--locale',
          'th',
        );
        await cli(
          'version',
          'publish',
          '--tenant',
          'siam',
          '--template',
          'privacy',
          '--tag',
          '1.0',
          '--content',
          '<p>ธนาคารเก็บอีเมลของท่าน</p>',
        );
        apiKey = String(
          (await cli('apikey', 'create', '--tenant', 'siam', '--name', 'mobile app')).key,
        );
        browser = await launchChromium();
        const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
        page = await context.newPage();
        page.setDefaultTimeout(budget(5_000));
        problems = watch(page).problems;
      });

      afterAll(async () => {
        await browser?.close();
        try {
          await server?.stop(budget(10_000));
        } finally {
          await store?.remove();
        }
      });

      it('the admin sets Bangkok time and a one-person team, writes 2.0 in Thai, and adds its English tab', async () => {
        await signInAs(page, server.baseUrl, admin.email, admin.password);
        await page.waitForURL(url('/backoffice/dashboard'));
        await page.goto(url('/backoffice/settings'));
        await page.getByLabel('Time zone').selectOption('Asia/Bangkok');
        await page.getByLabel('Four eyes on every version').uncheck();
        await page.getByRole('button', { name: 'Save' }).click();
        await expect.poll(() => page.getByRole('status').textContent()).toContain('saved');

        await page.goto(url('/backoffice/templates/privacy/versions/new'));
        await page.getByLabel('Tag').fill('2.0');
        await page.getByLabel('Content (HTML)').fill(thai);
        await page.getByRole('button', { name: 'Save as draft' }).click();
        await page.getByRole('link', { name: 'Add a locale' }).click();
        await page.getByLabel('Locale', { exact: true }).fill('en');
        await page.getByLabel('Content (HTML)').fill(english);
        await page.getByRole('button', { name: 'Save this locale' }).click();
        await expect.poll(() => page.getByRole('status').textContent()).toContain('Locale saved.');
        const tabs = page.getByRole('navigation', { name: 'Locales' });
        await expect.poll(() => tabs.textContent()).toMatch(/Thai th\s*English en\s*Add a locale/);
        await shot('01-english-tab');
        await tabs.getByRole('link', { name: /Thai/ }).click();
        await expect
          .poll(() => page.getByRole('heading', { name: 'Edit the draft' }).count())
          .toBe(1);
      });

      it('the review shows each locale; approved with a go-live time in Bangkok, it is scheduled and the API keeps answering 1.0', async () => {
        await page.getByRole('button', { name: 'Submit for review…' }).click();
        await page.getByRole('button', { name: 'Submit for review' }).click();
        await expect.poll(() => page.getByRole('status').textContent()).toContain('Submitted');
        await page.getByRole('button', { name: 'Pass to approval' }).click();
        await expect.poll(() => page.getByRole('status').textContent()).toContain('Review passed');
        const main = page.locator('main');
        await expect
          .poll(() => main.textContent())
          .toContain('A new locale: version 1 has no en text.');
        expect(await main.textContent()).toContain('Thai th');
        // The page's checks (axe at two widths) come before the go-live time is taken, so that
        // they do not eat into the seconds before it.
        await shot('02-review-and-approve');
        // Whole seconds, far enough ahead to see 1.0 answered before it.
        goLive = Math.ceil((Date.now() + budget(8_000)) / 1000) * 1000;
        await page.getByLabel(/Goes live at/).fill(bangkokWallTime(goLive));
        await page.getByRole('button', { name: 'Approve and publish version 2' }).click();
        await expect
          .poll(() => page.getByRole('status').textContent())
          .toContain('Version approved and scheduled');
        await expect
          .poll(() => main.textContent())
          .toMatch(/Scheduled\s*version 2 \(tag 2\.0\) goes live/);
        const scheduledPage = page.url();
        await page.goto(url('/backoffice/dashboard'));
        await expect.poll(() => main.textContent()).toContain('Scheduled releases');
        expect(Date.now()).toBeLessThan(goLive);
        expect((await latest('en')).tag).toBe('1.0');
        expect((await latest('th')).tag).toBe('1.0');
        await page.goto(scheduledPage);
        await shot('03-scheduled');
      });

      it('at its time it goes live in both locales; decisions in each are browsed by locale', async () => {
        const live = async (locale: string) => {
          await expect
            .poll(() => latest(locale), { timeout: budget(20_000), interval: 250 })
            .toMatchObject({ tag: '2.0', locale });
          return latest(locale);
        };
        const [enLive, thLive] = [await live('en'), await live('th')];
        expect(enLive.published_at).toBe(new Date(goLive).toISOString());
        expect(enLive.content_html).toBe(english);
        expect(thLive.content_html).toBe(thai);
        expect(enLive.consent_version_id).not.toBe(thLive.consent_version_id);
        for (const [customer, version] of [
          ['somchai', thLive.consent_version_id],
          ['emma', enLive.consent_version_id],
        ]) {
          const decided = await api(
            `/api/v1/customers/${customer}/consents/decisions`,
            {
              method: 'POST',
              body: JSON.stringify({ consent_version_id: version, decision: 'given' }),
            },
            { 'content-type': 'application/json' },
          );
          expect(decided.status).toBe(201);
        }
        await page.goto(url('/backoffice/decisions'));
        await page.getByLabel('Locale', { exact: true }).fill('th');
        await page.getByRole('button', { name: 'Filter' }).click();
        const list = page.locator('main table');
        await expect.poll(() => list.textContent()).toContain('somchai');
        expect(await list.textContent()).not.toContain('emma');
        expect(await list.textContent()).toContain('2 (2.0, th)');
        await shot('04-decisions-in-thai');
        expect(problems).toEqual([]);
      });
    });
  },
);
