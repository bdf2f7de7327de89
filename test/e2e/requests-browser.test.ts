/**
 * A data-subject request in real Chromium, served by the real server: the customer sends an
 * access request from their preference centre; a user of the back-office finds it in the queue
 * with its days left, checks identity and marks it done, and gets the single-use link to the
 * customer's evidence pack and export, which downloads once.
 */

import { unzipSync } from 'fflate';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capture, launchChromium, watch } from '../backoffice/browser.js';
import { daysFrom, daysLeftSeen } from '../helpers/days.js';
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

describe.each(journey)('a data-subject request in Chromium on $name', (testStore) => {
  let store: TempStore;
  let server: ServerProcess;
  let browser: Browser;
  let p: Provisioned;

  beforeAll(async () => {
    store = await makeTempStore(testStore);
    const port = await freePort();
    const env = { ...serverEnv(store, port, 'warn'), LOG_INTEGRATE_INTERVAL_MS: '50' };
    p = await provision(env);
    server = await startServer({ store, port, env });
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

  const api = (path: string, body?: unknown) =>
    fetch(`${server.baseUrl}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: {
        'x-system-api-key': p.apiKey.key,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it(
    'sent from the preference centre, answered in the back-office with the pack and the export',
    async () => {
      const customer = 'cust-77';
      const decided = await api(`/api/v1/customers/${customer}/consents/decisions`, {
        consent_version_id: p.versionId,
        decision: 'given',
      });
      expect(decided.status).toBe(201);
      const link = await api(`/api/v1/customers/${customer}/preference-links`, {});
      expect(link.status).toBe(201);
      const { url: linkUrl } = ((await link.json()) as { data: { url: string } }).data;

      // The customer, on their own page.
      const own = await browser.newContext({ viewport: { width: 390, height: 844 } });
      const mine = await own.newPage();
      mine.setDefaultTimeout(budget(5_000));
      const mineConsole = watch(mine);
      await mine.goto(linkUrl.replace(/^https?:\/\/[^/]+/, server.baseUrl));
      await mine.getByLabel('What you ask for').selectOption('access');
      await mine.getByLabel('Anything we should know (optional)').fill('A copy of all you hold.');
      await mine.getByRole('button', { name: 'Send my request' }).click();
      await expect
        .poll(() => mine.getByRole('status').textContent())
        .toContain('Your request was received.');
      const mineRows = mine
        .getByRole('region', { name: 'Your requests', exact: true })
        .locator('table');
      await expect.poll(() => mineRows.textContent()).toContain('A copy of my data');
      expect(mineConsole.problems).toEqual([]);
      await own.close();

      // The bank's staff, in the back-office.
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      page.setDefaultTimeout(budget(5_000));
      const console = watch(page);
      const url = (path: string) => `${server.baseUrl}${path}`;
      await page.goto(url('/backoffice/'));
      await page.getByLabel('E-mail').fill(`${p.alias}@example.test`);
      await page.getByLabel('Password').fill('a long enough password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(url('/backoffice/dashboard'));
      await page.getByRole('link', { name: 'Requests' }).click();
      await expect
        .poll(() => page.getByRole('heading', { level: 1 }).textContent())
        .toBe('Data-subject requests');
      const row = page.getByRole('row').filter({ hasText: customer });
      // Due 30 days after the day it came in (the tenant's zone is UTC); its days left as of the
      // day the page was read, whichever side of midnight that fell on.
      await expect.poll(() => row.textContent()).toMatch(/\d+ days left/);
      const shown = (await row.textContent()) ?? '';
      const [, received, due, left] =
        /(\d{4}-\d{2}-\d{2}) \d{2}:\d{2}:\d{2} UTC\s*(\d{4}-\d{2}-\d{2})\s*(\d+) days left/.exec(
          shown,
        ) ?? [];
      expect(daysFrom(received ?? '', due ?? '')).toBe(30);
      expect(daysLeftSeen(due ?? '', received ?? '', 0)).toContain(Number(left));
      await expect.poll(() => row.textContent()).toContain('Access');
      await capture(page, `${testStore.name}-request-queue`);

      await row.getByRole('link', { name: customer }).click();
      await expect
        .poll(() => page.getByRole('heading', { level: 1 }).textContent())
        .toBe('Access request');
      await expect
        .poll(() => page.locator('main').textContent())
        .toContain('A copy of all you hold.');
      await page.getByRole('button', { name: 'Identity checked' }).click();
      await expect.poll(() => page.getByRole('status').textContent()).toContain('Step recorded.');
      await page.getByLabel('Step', { exact: true }).selectOption('done');
      await page.getByRole('button', { name: 'Record' }).click();
      const delivered = page.getByLabel('Link for the customer');
      await expect.poll(() => delivered.count()).toBe(1);
      const deliveryUrl = await delivered.inputValue();
      expect(deliveryUrl).toMatch(/\/requests\/deliveries\/[A-Za-z0-9_-]{43}$/);
      await capture(page, `${testStore.name}-request-done`);
      expect(console.problems).toEqual([]);
      await context.close();

      // The link gives the customer's data once.
      const path = new URL(deliveryUrl).pathname;
      const download = await fetch(url(path));
      expect(download.status).toBe(200);
      const files = unzipSync(new Uint8Array(await download.arrayBuffer()));
      expect(Object.keys(files).sort()).toEqual([
        expect.stringMatching(/^evidence-\d{8}T\d{6}Z\.zip$/),
        'export.csv',
        'export.json',
      ]);
      const exported = JSON.parse(new TextDecoder().decode(files['export.json']));
      expect(exported.customer_id).toBe(customer);
      expect(exported.history).toHaveLength(1);
      expect(exported.requests[0]).toMatchObject({ kind: 'access', status: 'done' });
      expect((await fetch(url(path))).status).toBe(404);
    },
    budget(90_000),
  );
});
