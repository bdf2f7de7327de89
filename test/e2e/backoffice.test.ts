import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  capture,
  desktop,
  focusedElement,
  launchChromium,
  phone,
  screenshotDir,
  watch,
} from '../backoffice/browser.js';
import {
  callServer,
  expectJsonObject,
  makeTempStore,
  runCli,
  type ServerProcess,
  startServer,
  type TempStore,
  withStore,
} from '../helpers/process.js';
import { journeyStore } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';

/** This journey's store (see `journeyStore`). */
const journey = journeyStore('postgres');

const operator = { email: 'operator@example.test', password: 'operator password 1' };
const tenant = {
  alias: 'acme',
  name: 'Casey Compliance',
  email: 'compliance@acme.example',
  password: 'acme harbour lantern saffron',
};
const userAgent = 'ShopApp/4.2 (BrowserTest)';

/**
 * The dashboard chart's axis labels as drawn: their font size in screen pixels (a viewBox's
 * scaling included) and the height of their boxes.
 */
function chartLabels(
  page: Page,
): Promise<Array<{ text: string; fontSize: number; height: number }>> {
  return page.evaluate(() => {
    const { document, getComputedStyle } = globalThis as any;
    return [...document.querySelectorAll('figure.chart svg text')].map((label: any) => ({
      text: label.textContent,
      fontSize:
        Number.parseFloat(getComputedStyle(label).fontSize) * (label.getScreenCTM()?.d ?? 1),
      height: label.getBoundingClientRect().height,
    }));
  });
}

describe.each(journey)(
  'the back-office in Chromium, served by the real server on $name',
  (testStore) => {
    describe.sequential('an operator registers a tenant, whose user publishes, keys, looks up and exports', {
      timeout: budget(60_000),
    }, () => {
      let store: TempStore;
      let server: ServerProcess;
      let browser: Browser;
      let operatorContext: BrowserContext;
      let tenantContext: BrowserContext;
      let page: Page;
      let console: { problems: string[] } = { problems: [] };
      let apiKey = '';
      /** The first admin's invitation, as the operator's page shows it (no SMTP here). */
      let invitation = '';
      const shot = (name: string) => capture(page, `${testStore.name}-${name}`);
      const url = (path: string) => `${server.baseUrl}${path}`;

      const api = (path: string, init: RequestInit = {}) =>
        callServer(
          server,
          { 'x-system-api-key': apiKey, 'user-agent': userAgent },
          path,
          init,
          budget(5_000),
        );

      async function signIn(email: string, password: string, landing: string) {
        await page.goto(url('/backoffice/'));
        await page.getByLabel('E-mail').fill(email);
        await page.getByLabel('Password').fill(password);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.waitForURL(url(landing));
      }

      /**
       * From a draft's page: submits it, passes its review and approves it, as the one user of a
       * team without four eyes; the review page says what approving does before it is done.
       */
      async function publishAlone(number: number, consequence: string, screenshot?: string) {
        await page.getByRole('button', { name: 'Submit for review…' }).click();
        await page.getByRole('button', { name: 'Submit for review' }).click();
        await expect
          .poll(() => page.getByRole('status').textContent())
          .toContain('Submitted for review.');
        await page.getByRole('button', { name: 'Pass to approval' }).click();
        await expect.poll(() => page.getByRole('status').textContent()).toContain('Review passed');
        await expect.poll(() => page.locator('.consequence').textContent()).toContain(consequence);
        if (screenshot) await shot(screenshot);
        await page.getByLabel('Or publish at once, with no go-live time').check();
        await page.getByRole('button', { name: `Approve and publish version ${number}` }).click();
        await expect
          .poll(() => page.getByRole('status').textContent())
          .toContain('Version published');
      }

      /** A new page in the context, failing within its budget rather than the test's time-out. */
      async function openPage(context: BrowserContext) {
        page = await context.newPage();
        page.setDefaultTimeout(budget(5_000));
        console = watch(page);
      }

      beforeAll(async () => {
        store = await makeTempStore(testStore);
        server = await startServer({
          store,
          env: {
            OPERATOR_EMAIL: operator.email,
            OPERATOR_PASSWORD: operator.password,
          },
        });
        browser = await launchChromium();
        operatorContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
        await openPage(operatorContext);
      });

      afterAll(async () => {
        await browser?.close();
        try {
          await server?.stop(budget(10_000));
        } finally {
          await store?.remove();
        }
      });

      it('the sign-in page shows a visible focus ring when tabbing, and a wrong password an error', async () => {
        await page.goto(url('/backoffice/dashboard'));
        expect(page.url()).toBe(url('/backoffice/sign-in?next=%2Fbackoffice%2Fdashboard'));
        await shot('01-sign-in');
        // The first stop is the skip link, then the e-mail field.
        await page.keyboard.press('Tab');
        expect((await focusedElement(page)).text).toBe('Skip to content');
        await page.keyboard.press('Tab');
        const focused = await focusedElement(page);
        expect(focused.id).toBe('email');
        expect(focused.outline !== 'none' || focused.shadow !== 'none').toBe(true);
        await page.screenshot({
          path: join(screenshotDir, `${testStore.name}-02-focus-desktop.png`),
        });

        // An empty form names what is missing, next to each field.
        await page.getByRole('button', { name: 'Sign in' }).click();
        await expect
          .poll(() => page.locator('#email-error').textContent())
          .toBe('Enter your e-mail.');
        expect(await page.locator('#password-error').textContent()).toBe('Enter your password.');
        expect(await page.getByLabel('E-mail').getAttribute('aria-invalid')).toBe('true');
        await shot('03-sign-in-empty');
        expect(console.problems).toEqual([
          'error: Failed to load resource: the server responded with a status of 400 (Bad Request)',
        ]);
        console.problems.length = 0;

        await page.getByLabel('E-mail').fill(operator.email);
        await page.getByLabel('Password').fill('not the password');
        await page.getByRole('button', { name: 'Sign in' }).click();
        await expect
          .poll(() => page.getByRole('alert').textContent())
          .toContain('The e-mail or the password is not right');
        await shot('03-sign-in-failed');
        // The console reports the refused sign-in's 401 (as intended): nothing else.
        expect(console.problems).toEqual([
          'error: Failed to load resource: the server responded with a status of 401 (Unauthorized)',
        ]);
        console.problems.length = 0;
      });

      it('the operator signs in and registers a tenant with the form', async () => {
        await signIn(operator.email, operator.password, '/backoffice/operator/tenants');
        await page.getByRole('button', { name: 'Register a tenant' }).click();
        await page.getByLabel('Alias').fill(tenant.alias);
        await page.getByLabel("Admin's name").fill(tenant.name);
        await page.getByLabel("Admin's e-mail").fill(tenant.email);
        expect(await page.locator('input[type="password"]').count()).toBe(0);
        await shot('04-register-tenant');
        await page.getByRole('button', { name: 'Register tenant' }).click();
        await expect
          .poll(() => page.getByRole('status').first().textContent())
          .toBe('Tenant registered.');
        invitation = (await page.locator('#link-once').textContent()) ?? '';
        expect(invitation).toMatch(/\/backoffice\/password\?token=[A-Za-z0-9_-]{43}$/);
        await page.getByRole('link', { name: 'Back', exact: true }).click();
        await expect.poll(() => page.locator('tbody').textContent()).toContain(tenant.email);
        await shot('05-tenants');
        await page.getByText('Account').click();
        await page.getByRole('button', { name: 'Sign out' }).click();
        await expect.poll(() => page.getByRole('status').textContent()).toBe('You are signed out.');
        expect(console.problems).toEqual([]);
      });

      it("the tenant's user signs in to an empty dashboard and creates a template with a first version", async () => {
        tenantContext = await browser.newContext({
          viewport: { width: 1280, height: 800 },
          permissions: ['clipboard-read', 'clipboard-write'],
        });
        await openPage(tenantContext);
        // The first admin takes the invitation and sets their own password.
        const link = new URL(invitation);
        await page.goto(url(`${link.pathname}${link.search}`));
        await page.getByLabel('New password', { exact: true }).fill(tenant.password);
        await page.getByLabel('New password again').fill(tenant.password);
        await page.getByRole('button', { name: 'Set the password' }).click();
        await page.waitForURL(url('/backoffice/sign-in?notice=password-set'));
        await signIn(tenant.email, tenant.password, '/backoffice/dashboard');
        await shot('06-dashboard-empty');

        await page.getByRole('link', { name: 'Templates', exact: true }).click();
        await page.getByRole('button', { name: 'New template' }).click();
        await page.getByLabel('Code').fill('privacy_policy');
        await page.getByLabel('Name').fill('Privacy policy');
        await page.getByLabel('Description (optional)').fill('What we keep and why.');
        await page.getByRole('button', { name: 'Create template' }).click();
        await expect.poll(() => page.getByRole('status').textContent()).toBe('Template created.');

        await page.getByRole('button', { name: 'New draft version' }).click();
        await page.getByLabel('Tag').fill('1.0');
        await page
          .getByLabel('Content (HTML)')
          .fill('<h1>Privacy</h1><p>We keep your e-mail address.</p><script>alert(1)</script>');
        // The preview follows the typing (htmx) and shows what the sanitizer keeps.
        await expect
          .poll(() => page.locator('#preview').innerHTML())
          .toBe('<h1>Privacy</h1><p>We keep your e-mail address.</p>');
        await page.getByLabel('Content (HTML)').press('End');
        await page.getByLabel('Content (HTML)').pressSequentially('<p onclick="x()">Typed');
        await expect
          .poll(() => page.locator('#preview').innerHTML())
          .toBe('<h1>Privacy</h1><p>We keep your e-mail address.</p><p>Typed</p>');
        await shot('07-new-draft');
        await page.getByRole('button', { name: 'Save as draft' }).click();
        await expect.poll(() => page.getByRole('status').textContent()).toBe('Draft saved.');
        expect(await page.locator('.content-preview').innerHTML()).toBe(
          '<h1>Privacy</h1><p>We keep your e-mail address.</p><p>Typed</p>',
        );
        await shot('08-draft');

        // A one-person team: four eyes off in the settings, so the one user may approve what
        // they submitted.
        const draftPage = page.url();
        await page.getByText('Administration').click();
        await page.getByRole('link', { name: 'Settings' }).click();
        await page.getByLabel('Four eyes on every version').uncheck();
        await page.getByRole('button', { name: 'Save' }).click();
        await expect.poll(() => page.getByRole('status').textContent()).toBe('Settings saved.');
        await page.goto(draftPage);
        await publishAlone(1, 'no customer becomes pending');
        await shot('09-template');
        expect(console.problems).toEqual([]);
      });

      it('API Key Management (under Administration) shows a new key once; the API answers with it', async () => {
        await page.getByText('Administration').click();
        await page.getByRole('link', { name: 'API Key Management' }).click();
        await page.getByLabel('Name', { exact: true }).fill('web shop');
        await page.getByRole('button', { name: 'Create key' }).click();
        apiKey = (await page.locator('#new-key').textContent())?.trim() ?? '';
        expect(apiKey).toMatch(/^csk_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);
        await page.getByRole('button', { name: 'Copy' }).click();
        await expect.poll(() => page.getByRole('button', { name: 'Copied' }).count()).toBe(1);
        expect(await page.evaluate('navigator.clipboard.readText()')).toBe(apiKey);
        await shot('10-key-created');
        const latest = await api('/api/v1/consent-templates/privacy_policy/latest');
        expect(latest.status).toBe(200);
        expect(((await latest.json()) as { data: { tag: string } }).data.tag).toBe('1.0');
        // The key's page was reached by a redirect: reloading it neither shows the key again
        // nor makes a second one.
        expect(page.url()).toMatch(/\/backoffice\/api-keys\/[0-9a-f-]{36}$/);
        await page.reload();
        expect(await page.locator('#new-key').count()).toBe(0);
        expect(await page.locator('main').textContent()).not.toContain(apiKey);
        expect(await page.locator('main').textContent()).toContain(
          'was shown once, when it was created',
        );
        await page.getByRole('link', { name: 'Back to API Key Management' }).click();
        expect(await page.locator('tbody').textContent()).not.toContain(apiKey);
        expect(await page.locator('tbody tr', { hasText: 'web shop' }).count()).toBe(1);
        await shot('11-api-keys');
        // On a phone the table scrolls in its own box and says so; Revoke is reached from the
        // keyboard (focus scrolls it into view), with the key's status beside it.
        await page.setViewportSize(phone);
        const table = await page.locator('.table-scroll').evaluate((box: any) => {
          const { getComputedStyle } = globalThis as any;
          return {
            scrolls: box.scrollWidth > box.clientWidth,
            hint: getComputedStyle(box, '::before').content as string,
            shadows: getComputedStyle(box).backgroundImage as string,
          };
        });
        expect(table.scrolls).toBe(true);
        expect(table.hint).toContain('Scroll sideways for more columns');
        expect(table.shadows).toContain('radial-gradient');
        const hint = await page.locator('.table-scroll').boundingBox();
        expect(hint?.x).toBeGreaterThanOrEqual(0);
        const revoke = page.getByRole('link', { name: /Revoke web shop/ });
        await revoke.focus();
        for (const box of [
          await revoke.boundingBox(),
          await page.locator('td .badge').boundingBox(),
        ]) {
          expect(box?.x).toBeGreaterThanOrEqual(0);
          expect((box?.x ?? 0) + (box?.width ?? Infinity)).toBeLessThanOrEqual(phone.width);
        }
        await page.screenshot({
          path: join(screenshotDir, `${testStore.name}-11-api-keys-scrolled-phone.png`),
        });
        await page.setViewportSize(desktop);
        // A second active key of the same name is refused with the form's message.
        await page.getByLabel('Name', { exact: true }).fill('web shop');
        await page.getByRole('button', { name: 'Create key' }).click();
        await expect
          .poll(() => page.getByRole('alert').textContent())
          .toContain('An active key named "web shop" already exists.');
        expect(await page.locator('tbody tr', { hasText: 'web shop' }).count()).toBe(1);
        expect(console.problems).toEqual([
          'error: Failed to load resource: the server responded with a status of 400 (Bad Request)',
        ]);
        console.problems.length = 0;
      });

      it('after decisions through the API, the review of 2.0 says 3 customers become pending', async () => {
        const latest = (await (
          await api('/api/v1/consent-templates/privacy_policy/latest')
        ).json()) as {
          data: { consent_version_id: string };
        };
        const decide = (customer: string, decision: string) =>
          api(`/api/v1/customers/${customer}/consents/decisions`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ consent_version_id: latest.data.consent_version_id, decision }),
          }).then((r) => r.status);
        for (const customer of ['alice', 'bob', 'carol'])
          expect(await decide(customer, 'given')).toBe(201);
        expect(await decide('bob', 'withdraw')).toBe(201);

        await page.goto(url('/backoffice/templates/privacy_policy'));
        await page.getByRole('button', { name: 'New draft version' }).click();
        // The form starts from the latest text.
        expect(await page.getByLabel('Content (HTML)').inputValue()).toContain(
          'We keep your e-mail address.',
        );
        await page.getByLabel('Tag').fill('2.0');
        await page
          .getByLabel('Content (HTML)')
          .fill('<h1>Privacy</h1><p>We also keep your phone number.</p>');
        await page.getByRole('button', { name: 'Save as draft' }).click();
        await publishAlone(
          2,
          '3 customers decided on the current latest version (1, tag 1.0)',
          '12-approval',
        );
        // The API answers a publish within the contract's second.
        const accepted = async () => {
          const pending = await api(
            '/api/v1/customers/alice/consents/templates/privacy_policy/pending',
          );
          return ((await pending.json()) as { data: { accepted: boolean } }).data.accepted;
        };
        await expect.poll(accepted, { timeout: budget(1_500), interval: 100 }).toBe(false);
      });

      it('a session that ends while a draft is written: the preview says so, Save asks to sign in, and the text comes back to be saved', async () => {
        await page.goto(url('/backoffice/templates/privacy_policy'));
        await page.getByRole('button', { name: 'New draft version' }).click();
        // The tag starts as the one after the latest version's (2.0).
        expect(await page.getByLabel('Tag').inputValue()).toBe('2.1');
        // The live preview listens once htmx has bound the form, which a loaded page has done:
        // a text typed before that is never previewed.
        await page.waitForLoadState('load');
        const draft = '<h1>Privacy</h1><p>Written while the session ran out.</p>';
        await page.getByLabel('Content (HTML)').fill(draft);
        await expect.poll(() => page.locator('#preview').innerHTML()).toBe(draft);

        // The session runs out (no page seen for two hours) while the text is being written.
        await withStore(store, (db) =>
          db
            .updateTable('backoffice_sessions')
            .set({ last_seen_at: new Date(Date.now() - 2 * 3_600_000).toISOString() })
            .where('email', '=', tenant.email)
            .execute(),
        );
        await page.getByLabel('Content (HTML)').press('End');
        await page.getByLabel('Content (HTML)').pressSequentially('<p>More</p>');
        await expect
          .poll(() => page.locator('#preview').textContent())
          .toContain('Your session has ended.');
        expect(await page.locator('#preview input[name="password"]').count()).toBe(0);
        expect(await page.getByLabel('Content (HTML)').inputValue()).toBe(`${draft}<p>More</p>`);

        await page.getByRole('button', { name: 'Save as draft' }).click();
        await expect
          .poll(() => page.getByRole('status').textContent())
          .toContain('Your session ended before this was saved');
        await page.getByLabel('E-mail').fill(tenant.email);
        await page.getByLabel('Password').fill(tenant.password);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.waitForURL(url('/backoffice/templates/privacy_policy/versions/new'));
        expect(await page.getByRole('status').textContent()).toContain(
          'Your text is back: it is not saved yet.',
        );
        expect(await page.getByLabel('Content (HTML)').inputValue()).toBe(`${draft}<p>More</p>`);
        expect(await page.getByLabel('Tag').inputValue()).toBe('2.1');
        await page.getByRole('button', { name: 'Save as draft' }).click();
        await expect.poll(() => page.getByRole('status').textContent()).toBe('Draft saved.');
        expect(await page.locator('.content-preview').innerHTML()).toBe(`${draft}<p>More</p>`);
        // The refused preview and save answered 401, which the browser reports; nothing else.
        expect(new Set(console.problems)).toEqual(
          new Set([
            'error: Failed to load resource: the server responded with a status of 401 (Unauthorized)',
          ]),
        );
        console.problems.length = 0;
      });

      it("the dashboard charts today's decisions", async () => {
        await page.getByRole('link', { name: 'Dashboard' }).click();
        const chart = page.getByRole('img', { name: /Decisions per day on privacy_policy/ });
        await expect.poll(() => chart.count()).toBe(1);
        expect(await page.locator('svg rect.bar-given').count()).toBe(1);
        expect(await page.locator('svg rect.bar-withdraw').count()).toBe(1);
        // The axis labels read at the page's small-text size at any width, not scaled with the chart.
        for (const viewport of [desktop, phone]) {
          await page.setViewportSize(viewport);
          const labels = await chartLabels(page);
          expect(labels.length, `${viewport.width}px`).toBeGreaterThanOrEqual(8);
          for (const { text, fontSize, height } of labels) {
            expect(fontSize, `${viewport.width}px "${text}"`).toBeGreaterThanOrEqual(10);
            expect(fontSize, `${viewport.width}px "${text}"`).toBeLessThanOrEqual(18);
            expect(height, `${viewport.width}px "${text}"`).toBeGreaterThanOrEqual(10);
            expect(height, `${viewport.width}px "${text}"`).toBeLessThanOrEqual(24);
          }
        }
        await page.setViewportSize(desktop);
        // Four decisions today: the y-axis counts whole numbers up to 4.
        const numbers = (await page.locator('figure.chart svg text').allTextContents()).filter(
          (text) => /^[\d.]+$/.test(text),
        );
        expect(numbers).toEqual(['0', '1', '2', '3', '4']);
        await shot('13-dashboard');
        // Keyboard users see where they are in the navigation, menus included.
        await page.locator('body').focus();
        let focused = await focusedElement(page);
        for (let i = 0; i < 20 && focused.text !== 'Administration'; i += 1) {
          await page.keyboard.press('Tab');
          focused = await focusedElement(page);
        }
        expect(focused.text).toBe('Administration');
        expect(focused.outline).toBe('solid');
        await page.screenshot({
          path: join(screenshotDir, `${testStore.name}-13-focus-menu-desktop.png`),
        });
      });

      it('a customer look-up shows the history with version, tag, key name, IP and user agent', async () => {
        await page.getByRole('link', { name: 'Customers' }).click();
        await page.getByLabel('Customer id').fill('bob');
        await page.getByRole('button', { name: 'Look up' }).click();
        const history = page.locator('table.history tbody tr');
        await expect.poll(() => history.count()).toBe(2);
        const first = (await history.first().textContent()) ?? '';
        expect(first).toContain('withdraw');
        expect(first).toContain('web shop');
        expect(first).toContain('127.0.0.1');
        expect(first).toContain(userAgent);
        expect(await page.locator('tbody').first().textContent()).toContain('pending');
        await shot('14-customer');
        // Each decision's receipt downloads from its row once it is in the log.
        await expect
          .poll(
            async () => {
              await page.reload();
              return page.getByRole('link', { name: /^Receipt/ }).count();
            },
            { timeout: budget(5_000), interval: 250 },
          )
          .toBe(2);
        const [download] = await Promise.all([
          page.waitForEvent('download'),
          page
            .getByRole('link', { name: /^Receipt/ })
            .first()
            .click(),
        ]);
        const receipt = JSON.parse(readFileSync(await download.path(), 'utf8'));
        expect(receipt.data.decision.customer_id).toBe('bob');
        expect(receipt.data.tlog_proof).toMatch(/^c2sp\.org\/tlog-proof@v1\n/);
      });

      it('the export downloads the decisions of the template as CSV', async () => {
        await page.getByRole('link', { name: 'Exports' }).click();
        await page.getByLabel('Template').selectOption('privacy_policy');
        const today = new Date().toISOString().slice(0, 10);
        await page.getByLabel('From (first day, optional)').fill(today);
        await page.getByLabel('To (last day, optional)').fill(today);
        await shot('15-exports');
        const [download] = await Promise.all([
          page.waitForEvent('download'),
          page.getByRole('button', { name: 'Download CSV' }).click(),
        ]);
        const rows = parse(readFileSync(await download.path(), 'utf8'), { columns: true }) as Array<
          Record<string, string>
        >;
        expect(rows.map((r) => `${r.customer_id} ${r.decision}`)).toEqual([
          'alice given',
          'bob given',
          'carol given',
          'bob withdraw',
        ]);
        expect(rows[0]).toMatchObject({
          tag: '1.0',
          api_key_name: 'web shop',
          user_agent: userAgent,
        });
      });

      it('the decision log page shows the checkpoint, and an audit run from it finds no problem', async () => {
        await page.getByText('Administration').click();
        await page.getByRole('link', { name: 'Decision log' }).click();
        expect(await page.locator('h1').textContent()).toBe('Decision log');
        await page.getByRole('button', { name: 'Run the audit now' }).click();
        await expect.poll(() => page.locator('p.notice').textContent()).toBe('Audit finished.');
        expect(await page.locator('main').textContent()).toContain('no problem found');
        await shot('16-decision-log');
        expect(console.problems).toEqual([]);
      });

      it('the audit log lists what was done, and the other tenant sees none of it (404 on its pages)', async () => {
        await page.getByText('Administration').click();
        await page.getByRole('link', { name: 'Audit log' }).click();
        const log = (await page.locator('tbody').textContent()) ?? '';
        for (const action of [
          'sign_in',
          'template.created',
          'version.published',
          'api_key.created',
          'customer.looked_up',
          'export.decisions',
          'log.audited',
        ]) {
          expect(log).toContain(action);
        }
        await shot('17-audit');
        expect(console.problems).toEqual([]);

        expectJsonObject(
          await runCli(
            [
              'tenant',
              'create',
              '--alias',
              'other',
              '--email',
              'it@other.example',
              '--password',
              'other password 1',
            ],
            server.env,
          ),
        );
        const otherContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
        await openPage(otherContext);
        await signIn('it@other.example', 'other password 1', '/backoffice/dashboard');
        const response = await page.goto(url('/backoffice/templates/privacy_policy'));
        expect(response?.status()).toBe(404);
        expect(await page.locator('h1').textContent()).toBe('Page not found');
        // The user can go on from the error page: the navigation is there.
        const main = page.getByRole('navigation', { name: 'Main' });
        expect(await main.getByRole('link', { name: 'Dashboard' }).isVisible()).toBe(true);
        await shot('18-not-found');
        await page.goto(url('/backoffice/customers?customer_id=bob'));
        expect(await page.getByRole('status').textContent()).toContain(
          'No decision recorded for bob.',
        );
        await otherContext.close();
      });

      it('erasing a customer asks first and wants the id typed; the API then finds them pending', async () => {
        await openPage(tenantContext);
        await page.goto(url('/backoffice/customers?customer_id=carol'));
        await page.getByRole('button', { name: 'Erase this customer…' }).click();
        expect(await page.locator('h1').textContent()).toBe('Erase customer carol?');
        await shot('19-erase-confirmation');
        await page.getByLabel('Type the customer id to confirm').fill('caro');
        await page.getByRole('button', { name: 'Erase for good' }).click();
        expect(await page.locator('.field-error').textContent()).toBe(
          'Type the customer id exactly as shown to confirm.',
        );
        // The refused form is answered 400, which the browser reports; nothing else may be.
        expect(console.problems).toEqual([
          'error: Failed to load resource: the server responded with a status of 400 (Bad Request)',
        ]);
        console.problems.length = 0;
        await page.getByLabel('Type the customer id to confirm').fill('carol');
        await page.getByRole('button', { name: 'Erase for good' }).click();
        await expect
          .poll(() => page.getByRole('status').first().textContent())
          .toContain('The customer was erased');
        const pending = await api(
          '/api/v1/customers/carol/consents/templates/privacy_policy/pending',
        );
        expect(((await pending.json()) as { data: { accepted: boolean } }).data.accepted).toBe(
          false,
        );
        // Looking the id up again says what can honestly be said: how many of the tenant's
        // customers were erased, never whether this id was one of them.
        await page.goto(url('/backoffice/customers?customer_id=carol'));
        const notice = (await page.locator('.erasure-notice').textContent()) ?? '';
        expect(notice).toContain('an erasure keeps no link to the customer id');
        expect(notice).toContain('1 customer of this tenant was erased');
        expect(notice).toContain('their 1 decision stays in the decision log');
        await shot('21-erased-look-up');
        await page.goto(url('/backoffice/audit'));
        expect(await page.locator('tbody').textContent()).toContain('customer.erased');
        expect(console.problems).toEqual([]);
      });

      it('revoking the key asks first; the API then refuses it within a second', async () => {
        await openPage(tenantContext);
        await page.goto(url('/backoffice/api-keys'));
        await page.getByRole('link', { name: /Revoke web shop/ }).click();
        await shot('20-revoke-confirmation');
        await page.getByRole('button', { name: 'Revoke the key' }).click();
        await expect.poll(() => page.getByRole('status').textContent()).toBe('Key revoked.');
        // A revocation is seen within a second (keys are checked through a short-lived cache).
        const status = async () => {
          const response = await api('/api/v1/consent-templates/privacy_policy/latest');
          await response.arrayBuffer();
          return response.status;
        };
        await expect.poll(status, { timeout: budget(1_500), interval: 100 }).toBe(401);
        expect(console.problems).toEqual([]);
      });
    });
  },
);
