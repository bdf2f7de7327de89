/**
 * Every page of the back-office in real Chromium, served by the real server: each is opened by a
 * tenant's admin or by the operator and checked by `capture()` at 1280 and 390 px (styled,
 * labelled, no sideways scrolling, 0 axe violations). The other browser tests walk the journeys;
 * this one makes sure no page is left out of the checks, and checks what a page does for a
 * keyboard user after a form (the notice takes the focus) and the size of the QR code.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capture, desktop, focusedElement, launchChromium, watch } from '../backoffice/browser.js';
import {
  freePort,
  makeTempStore,
  type Provisioned,
  provision,
  type ServerProcess,
  serverEnv,
  startServer,
  type TempStore,
} from '../helpers/process.js';
import { journeyStore } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';

/** This journey's store (see `journeyStore`). */
const journey = journeyStore('sqlite');

const operator = { email: 'operator@example.test', password: 'operator password 1' };
const password = 'a long enough password';
const longAgent = `ShopApp/4.2 (Linux; Android 14; Pixel 8 Pro Build/AP2A.240805.005) ${'x'.repeat(80)}`;

describe.each(journey)('every back-office page in Chromium on $name', (testStore) => {
  let store: TempStore;
  let server: ServerProcess;
  let browser: Browser;
  let p: Provisioned;
  let decisionId = '';
  const url = (path: string) => `${server.baseUrl}/backoffice${path}`;

  beforeAll(async () => {
    store = await makeTempStore(testStore);
    const port = await freePort();
    const env = {
      ...serverEnv(store, port, 'warn'),
      OPERATOR_EMAIL: operator.email,
      OPERATOR_PASSWORD: operator.password,
    };
    p = await provision(env);
    server = await startServer({ store, port, env });
    for (const [customer, decision] of [
      ['c-1', 'given'],
      ['c-2', 'reject'],
      ['c-1', 'withdraw'],
    ] as const) {
      const decided = await fetch(
        `${server.baseUrl}/api/v1/customers/${customer}/consents/decisions`,
        {
          method: 'POST',
          headers: {
            'x-system-api-key': p.apiKey.key,
            'content-type': 'application/json',
            'user-agent': longAgent,
          },
          body: JSON.stringify({ consent_version_id: p.versionId, decision }),
        },
      );
      expect(decided.status).toBe(201);
      decisionId = ((await decided.json()) as { data: { decision_id: string } }).data.decision_id;
    }
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    try {
      await server?.stop(budget(10_000));
    } finally {
      await store?.remove();
    }
  });

  async function signedInPage(
    email: string,
    secret: string,
  ): Promise<{ context: BrowserContext; page: Page; console: { problems: string[] } }> {
    const context = await browser.newContext({ viewport: desktop });
    const page = await context.newPage();
    page.setDefaultTimeout(budget(5_000));
    const console = watch(page);
    await page.goto(url('/sign-in'));
    await capture(page, `pages-${testStore.name}-sign-in`);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(secret);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((address) => !address.pathname.endsWith('/sign-in'));
    return { context, page, console };
  }

  /** Opens the page and checks it at both widths; answers the page's links under `under`. */
  async function visit(page: Page, path: string, under?: string): Promise<string[]> {
    const response = await page.goto(url(path));
    expect(response?.status(), path).toBe(200);
    await capture(page, `pages-${testStore.name}${path.replace(/[^\w]+/g, '-')}`);
    if (!under) return [];
    return page
      .locator(`main a[href^="/backoffice${under}"]`)
      .evaluateAll((links) =>
        links.map((link) => (link as unknown as { pathname: string }).pathname),
      );
  }

  it(
    "a tenant's admin: every page of the tenant's back-office passes at both widths",
    async () => {
      const { context, page, console } = await signedInPage(`${p.alias}@example.test`, password);
      for (const path of [
        '/dashboard',
        '/products/new',
        '/partners',
        '/partners/new',
        '/templates',
        '/templates/new',
        `/templates/${p.templateCode}`,
        `/templates/${p.templateCode}/versions/new`,
        `/templates/${p.templateCode}/versions/${p.versionId}`,
        '/customers',
        '/customers?customer_id=c-1',
        '/customers?customer_id=nobody',
        '/decisions',
        '/decisions?customer=c-1',
        `/decisions/${decisionId}`,
        '/exports',
        '/webhooks',
        '/log',
        '/audit',
        '/users/new',
        '/roles/new',
        '/settings',
        '/settings/sso',
        '/settings/scim',
        '/settings/sign-in',
        '/sso',
        '/requests',
        '/requests?closed=1',
        '/processing-record',
        '/account/password',
        '/account/two-factor',
        '/account/passkeys',
      ]) {
        await visit(page, path);
      }
      for (const [list, under] of [
        ['/products', '/products/'],
        ['/api-keys', '/api-keys/'],
        ['/users', '/users/'],
        ['/roles', '/roles/'],
      ] as const) {
        const links = (await visit(page, list, under)).filter((path) => !path.endsWith('/new'));
        expect(links.length, `${list} links to an item`).toBeGreaterThan(0);
        await visit(page, (links[0] ?? '').replace('/backoffice', ''));
      }
      expect(console.problems).toEqual([]);
      await context.close();
    },
    budget(240_000),
  );

  it('after a form, the notice it leads to has the focus', async () => {
    const { context, page } = await signedInPage(`${p.alias}@example.test`, password);
    await page.goto(url('/settings'));
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Settings saved.');
    // Chromium moves the focus to an autofocus element at its next rendering step, after the
    // page is in the DOM, so the focus is awaited rather than read once.
    await expect.poll(async () => (await focusedElement(page)).id).toBe('notice');
    expect((await focusedElement(page)).text).toBe('Settings saved.');
    await context.close();
  });

  it("the customer's page downloads their evidence pack from its form", async () => {
    const { context, page } = await signedInPage(`${p.alias}@example.test`, password);
    await page.goto(url('/customers?customer_id=c-1'));
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download evidence pack' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^evidence-\d{8}T\d{6}Z\.zip$/);
    // The form posts the customer id: it is in no URL the browser went to.
    expect(download.url()).toBe(url('/customers/evidence'));
    await context.close();
  });

  it('the QR code to set up two-factor sign-in is a scannable size on a desktop, not the page width', async () => {
    const { context, page } = await signedInPage(`${p.alias}@example.test`, password);
    await page.goto(url('/account/two-factor'));
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    const qr = page.locator('.qr-code svg');
    await expect.poll(() => qr.count()).toBe(1);
    const box = await qr.boundingBox();
    expect(box?.width).toBeGreaterThanOrEqual(160);
    expect(box?.width).toBeLessThanOrEqual(320);
    await capture(page, `pages-${testStore.name}-two-factor-setup`);
    await context.close();
  });

  it(
    'the operator: every page of the operator passes at both widths',
    async () => {
      const { context, page, console } = await signedInPage(operator.email, operator.password);
      for (const path of ['/operator/tenants/new', '/operator/operators', '/operator/audit']) {
        await visit(page, path);
      }
      const tenants = await visit(page, '/operator/tenants', '/operator/tenants/');
      const tenant = tenants.find((path) => !path.endsWith('/new'));
      expect(tenant).toBeDefined();
      await visit(page, (tenant ?? '').replace('/backoffice', ''));
      expect(console.problems).toEqual([]);
      await context.close();
    },
    budget(120_000),
  );

  it('a visitor: the forgotten-password page passes at both widths', async () => {
    const context = await browser.newContext({ viewport: desktop });
    const page = await context.newPage();
    await visit(page, '/forgot-password');
    await context.close();
  });
});
