/**
 * The back-office's webhooks in real Chromium, served by the real server: a tenant's user adds
 * an endpoint, copies its secret from the page that shows it once, and sees the delivery of the
 * decision that follows; the receiver checks the signature with that secret.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capture, launchChromium, watch } from '../backoffice/browser.js';
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
import { startReceiver, verified } from '../helpers/webhook-receiver.js';

/** This journey's store (see `journeyStore`). */
const journey = journeyStore('sqlite');

describe.each(journey)('webhooks in Chromium on $name', (testStore) => {
  let store: TempStore;
  let server: ServerProcess;
  let browser: Browser;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let p: Provisioned;

  beforeAll(async () => {
    store = await makeTempStore(testStore);
    const port = await freePort();
    const env = {
      ...serverEnv(store, port, 'warn'),
      WEBHOOK_ALLOW_HTTP_LOOPBACK: 'true',
      WEBHOOK_DISPATCH_INTERVAL_MS: '50',
      LOG_INTEGRATE_INTERVAL_MS: '50',
    };
    p = await provision(env);
    receiver = await startReceiver();
    server = await startServer({ store, port, env });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    try {
      await server?.stop(budget(10_000));
    } finally {
      await receiver?.close();
      await store?.remove();
    }
  });

  it(
    'a user adds an endpoint, sees its secret once, and sees the delivery of a decision',
    async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page: Page = await context.newPage();
      page.setDefaultTimeout(budget(5_000));
      const console = watch(page);
      const url = (path: string) => `${server.baseUrl}${path}`;
      await page.goto(url('/backoffice/'));
      await page.getByLabel('E-mail').fill(`${p.alias}@example.test`);
      await page.getByLabel('Password').fill('a long enough password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(url('/backoffice/dashboard'));

      await page.getByText('Administration').click();
      await page.getByRole('link', { name: 'Webhooks' }).click();
      await expect
        .poll(() => page.getByRole('heading', { level: 1 }).textContent())
        .toBe('Webhooks');
      await page.getByLabel('URL').fill(receiver.url);
      await page.getByLabel('decision.given').check();
      await page.getByLabel('Description (optional)').fill('CRM sync');
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      await expect
        .poll(() => page.getByRole('heading', { level: 1 }).textContent())
        .toBe('Endpoint added');
      const secret = (await page.locator('#new-secret').textContent()) ?? '';
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      await capture(page, `${testStore.name}-webhook-secret`);
      await page.getByRole('link', { name: 'Go to the endpoint' }).click();
      await expect.poll(() => page.locator('body').textContent()).toContain('No delivery yet.');

      const decided = await fetch(`${server.baseUrl}/api/v1/customers/c-1/consents/decisions`, {
        method: 'POST',
        headers: { 'x-system-api-key': p.apiKey.key, 'content-type': 'application/json' },
        body: JSON.stringify({ consent_version_id: p.versionId, decision: 'given' }),
      });
      expect(decided.status).toBe(201);
      const decision = ((await decided.json()) as { data: { decision_id: string } }).data;
      await expect
        .poll(
          async () => {
            await page.reload();
            return page.locator('table').textContent();
          },
          { timeout: budget(10_000), interval: 200 },
        )
        .toContain('delivered');
      await capture(page, `${testStore.name}-webhook-delivered`);
      expect(receiver.received).toHaveLength(1);
      const payload = verified(secret, receiver.received[0] as never);
      expect(payload.data.decision_id).toBe(decision.decision_id);
      expect(console.problems).toEqual([]);
      await context.close();
    },
    budget(60_000),
  );
});
