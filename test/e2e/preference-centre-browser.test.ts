/**
 * The preference centre in real Chromium, served by the real server: a client backend (a few
 * lines with the typed client, as docs/preference-centre.md shows) records a customer's
 * decisions and asks for a link in Thai; the customer opens it, withdraws one consent in two
 * clicks, blocks SMS for one product and stops sharing with a partner; the API then shows all
 * three, each with a receipt made via the preference centre. The same link opened again, an
 * expired one, an altered one and another tenant's are each refused with a page that shows
 * nothing of the customer. The page passes axe at 1280 and 390 px and fits a phone's width.
 */

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ConsentClient, createConsentClient } from '@consent-service/client';
import { unzipSync } from 'fflate';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/platform/ids.js';
import { preferenceSecrets } from '../../src/preference-centre/index.js';
import { openLink, sealLink } from '../../src/preference-centre/tokens.js';
import { fitsAndPassesAxe, launchChromium, signInAs } from '../backoffice/browser.js';
import { e2eDataKey } from '../helpers/data-key.js';
import {
  expectJsonObject,
  freePort,
  makeTempStore,
  type Provisioned,
  provision,
  runCli,
  type ServerProcess,
  serverEnv,
  startServer,
  type TempStore,
} from '../helpers/process.js';
import { journeyStore } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';

const journey = journeyStore('sqlite');
const customer = 'somchai-0042';

describe.each(journey)('the preference centre in Chromium on $name', (testStore) => {
  let store: TempStore;
  let server: ServerProcess;
  let browser: Browser;
  let acme: Provisioned;
  let globex: Provisioned;
  let backend: ConsentClient;
  let marketingVersion = '';
  let marketingDecision = '';
  /** The tenant's own site, on another origin (`localhost` against the service's 127.0.0.1). */
  let site: Server;
  let siteOrigin = '';
  let framedLink = '';

  beforeAll(async () => {
    store = await makeTempStore(testStore);
    const port = await freePort();
    const env = serverEnv(store, port, 'warn');
    acme = await provision(env, {
      content: '<h1>นโยบายความเป็นส่วนตัว</h1><p>Privacy marker 71c</p>',
    });
    globex = await provision(env, { alias: 'globex' });
    const cli = async (args: string[]) => expectJsonObject(await runCli(args, env));
    await cli([
      'product',
      'create',
      '--tenant',
      'acme',
      '--code',
      'savings',
      '--name',
      'Savings account',
    ]);
    await cli([
      'partner',
      'create',
      '--tenant',
      'acme',
      '--code',
      'zeta-bank',
      '--name',
      'Zeta Bank',
    ]);
    await cli([
      'template',
      'create',
      '--tenant',
      'acme',
      '--code',
      'marketing',
      '--name',
      'Marketing offers',
    ]);
    const marketing = await cli([
      'version',
      'publish',
      '--tenant',
      'acme',
      '--template',
      'marketing',
      '--tag',
      '1.0',
      '--content',
      '<p>Offers from us and Zeta Bank</p>',
      '--partners',
      'zeta-bank',
    ]);
    marketingVersion = String(marketing.consent_version_id);
    server = await startServer({ store, port, env });
    // The client's backend: its API key never leaves it.
    backend = createConsentClient({ baseUrl: server.baseUrl, apiKey: acme.apiKey.key });
    await backend.decide(customer, { consent_version_id: acme.versionId, decision: 'given' });
    const marketingGiven = await backend.decide(customer, {
      consent_version_id: marketingVersion,
      decision: 'given',
    });
    marketingDecision = marketingGiven.decision_id;
    site = createServer((_request, response) => {
      response.setHeader('content-type', 'text/html; charset=utf-8');
      response.end(
        `<!doctype html><html lang="en"><title>Shop</title><h1>My account</h1><iframe title="Privacy choices" src="${framedLink}" style="width:100%;height:60rem"></iframe>`,
      );
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteOrigin = `http://localhost:${(site.address() as AddressInfo).port}`;
    browser = await launchChromium();
    // The tenant names its page and the site that may frame it, in the back-office.
    const admin = await browser.newContext();
    const page = await admin.newPage();
    await signInAs(page, server.baseUrl, 'acme@example.test', 'a long enough password');
    await page.goto(`${server.baseUrl}/backoffice/preference-centre`);
    await page.getByLabel('Name shown to customers').fill('Acme Bank');
    await page.getByLabel('Allowed origins').fill(`${siteOrigin}\nhttps://shop.example`);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/backoffice\/preference-centre\?notice=/);
    expect(await page.getByRole('status').textContent()).toBe('Preference centre saved.');
    await admin.close();
  });
  afterAll(async () => {
    await browser?.close();
    site?.close();
    try {
      await server?.stop(budget(10_000));
    } finally {
      await store?.remove();
    }
  });

  async function readDownload(download: { createReadStream(): Promise<NodeJS.ReadableStream> }) {
    const chunks: Buffer[] = [];
    for await (const chunk of await download.createReadStream()) chunks.push(Buffer.from(chunk));
    return Buffer.concat(chunks);
  }

  /** What a refused link's page must not show: anything of the customer or their consents. */
  const expectNothingShown = async (page: Page) => {
    const text = (await page.locator('body').innerText()) + (await page.content());
    for (const secret of [
      'Privacy marker 71c',
      'Marketing',
      'Zeta Bank',
      'Savings',
      customer,
      '_csrf',
    ]) {
      expect(text).not.toContain(secret);
    }
  };

  it(
    'opens in Thai; withdraw takes two clicks; SMS and a partner are blocked; the API shows all three with receipts',
    async () => {
      const link = await backend.preferenceLink(customer, {
        locale: 'th',
        return_url: 'https://shop.example/account',
      });
      expect(link.url).not.toContain(customer);
      // The whole journey with JavaScript off: the page needs none.
      const context = await browser.newContext({
        locale: 'th-TH',
        javaScriptEnabled: false,
        acceptDownloads: true,
      });
      const page = await context.newPage();
      await page.goto(link.url);
      expect(new URL(page.url()).pathname).toBe('/preferences/acme');
      expect(new URL(page.url()).search).toBe('');
      expect(await page.locator('html').getAttribute('lang')).toBe('th');
      await expect
        .poll(() => page.locator('h1').first().textContent())
        .toBe('การตั้งค่าความเป็นส่วนตัวของคุณ');

      // Withdrawing: the button on the consent, then the one that confirms.
      let clicks = 0;
      await page.getByRole('link', { name: /^ถอนความยินยอม\s*: Privacy$/ }).click();
      clicks += 1;
      await expect.poll(() => page.locator('h1').textContent()).toBe('ถอนความยินยอมของคุณ');
      await page.getByRole('button', { name: 'ใช่ ถอนความยินยอม' }).click();
      clicks += 1;
      expect(clicks).toBe(2);
      const notice = page.getByRole('status');
      await expect.poll(() => notice.textContent()).toMatch(/^บันทึกแล้ว รหัสใบรับรอง [0-9a-f-]{36}$/);
      const withdrawalId = /([0-9a-f-]{36})/.exec((await notice.textContent()) ?? '')?.[1] ?? '';

      await page.getByRole('button', { name: /^ระงับ SMS\s*– Savings account$/ }).click();
      await expect.poll(() => notice.textContent()).toMatch(/^บันทึกแล้ว/);
      const smsChange = /([0-9a-f-]{36})/.exec((await notice.textContent()) ?? '')?.[1] ?? '';
      expect(smsChange).not.toBe(withdrawalId);

      await page.getByRole('button', { name: 'หยุดแบ่งปันกับ Zeta Bank' }).click();
      await expect.poll(() => notice.textContent()).toMatch(/^บันทึกแล้ว/);
      const partnerChange = /([0-9a-f-]{36})/.exec((await notice.textContent()) ?? '')?.[1] ?? '';
      expect([withdrawalId, smsChange]).not.toContain(partnerChange);
      // Each receipt id is listed among the customer's records.
      const records = await page
        .getByRole('region', { name: 'บันทึกของคุณ', exact: true })
        .innerText();
      for (const id of [withdrawalId, smsChange, partnerChange]) expect(records).toContain(id);
      // The customer's own evidence pack.
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'ดาวน์โหลดชุดหลักฐานของฉัน' }).click(),
      ]);
      const pack = unzipSync(new Uint8Array(await readDownload(download)));
      expect(Object.keys(pack)).toContain('manifest.json');
      const packed = Object.keys(pack).join(' ');
      for (const id of [withdrawalId, smsChange, partnerChange]) expect(packed).toContain(id);
      await context.close();

      // Checked by axe-core with its script, in a session of its own.
      const checked = await browser.newContext({ locale: 'th-TH' });
      const view = await checked.newPage();
      await view.goto((await backend.preferenceLink(customer, { locale: 'th' })).url);
      await fitsAndPassesAxe(view, 'preference page');
      await view.getByRole('link', { name: /^ถอนความยินยอม\s*: Marketing offers$/ }).click();
      await expect.poll(() => view.locator('h1').textContent()).toBe('ถอนความยินยอมของคุณ');
      await fitsAndPassesAxe(view, 'withdrawal');
      await checked.close();

      // The API, through the same backend.
      const consents = await backend.consents(customer);
      const privacy = consents.templates.find((t) => t.template_code === acme.templateCode);
      expect(privacy?.last_decision).toMatchObject({
        decision: 'withdraw',
        decision_id: withdrawalId,
      });
      const sms = (await backend.channels(customer)).find(
        (c) => c.product_code === 'savings' && c.channel === 'sms',
      );
      expect(sms).toMatchObject({ blocked: true, record_id: smsChange });
      const partners = await backend.partnerBlocks(customer, marketingDecision);
      expect(partners).toEqual([
        expect.objectContaining({
          partner_code: 'zeta-bank',
          blocked: true,
          record_id: partnerChange,
        }),
      ]);
      const receipts = [
        await backend.receipt(withdrawalId, { wait: true }),
        await backend.channelReceipt(smsChange, { wait: true }),
        await backend.partnerBlockReceipt(partnerChange, { wait: true }),
      ];
      for (const receipt of receipts) {
        expect(receipt).toHaveProperty('tlog_proof');
        expect(receipt).toMatchObject({
          opening: { via: 'preference-centre', customer_id: customer },
        });
      }
    },
    budget(180_000),
  );

  it('works framed in the tenant’s site on another origin, with a partitioned cookie', async () => {
    const neighbour = `${customer}-next-door`;
    const given = await backend.decide(neighbour, {
      consent_version_id: marketingVersion,
      decision: 'given',
    });
    framedLink = (await backend.preferenceLink(neighbour)).url;
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${siteOrigin}/account`);
    const frame = page.frameLocator('iframe');
    await expect.poll(() => frame.locator('h1').first().textContent()).toBe('Your privacy choices');
    // A change made in the frame: its form and cookie work across sites.
    await frame.getByRole('button', { name: 'Stop sharing with Zeta Bank' }).click();
    await expect
      .poll(() => frame.getByRole('status').textContent())
      .toMatch(/^Recorded\. Receipt id /);
    const partners = await backend.partnerBlocks(neighbour, given.decision_id);
    expect(partners[0]).toMatchObject({ partner_code: 'zeta-bank', blocked: true });
    const cookies = await context.cookies();
    // Kept for the embedding site alone (CHIPS), sent cross-site.
    expect(cookies.map((c) => [c.name, c.sameSite, c.secure, c.partitionKey])).toEqual([
      ['preference_session', 'None', true, 'http://localhost'],
    ]);
    await context.close();
  });

  it('refuses the same link again, an expired, an altered and another tenant’s link, showing nothing', async () => {
    const context = await browser.newContext({ locale: 'th-TH' });
    const page = await context.newPage();
    const used = await backend.preferenceLink(customer, { locale: 'th' });
    await page.goto(used.url);
    expect(new URL(page.url()).pathname).toBe('/preferences/acme');
    const again = await page.goto(used.url);
    expect(again?.status()).toBe(410);
    expect(await page.locator('h1').textContent()).toBe('ไม่สามารถเปิดลิงก์นี้ได้');
    await expectNothingShown(page);
    await fitsAndPassesAxe(page, 'refused link');

    // A link whose time has passed, made as the service makes them (its key, an earlier expiry).
    const secrets = preferenceSecrets(e2eDataKey);
    const fresh = await backend.preferenceLink(customer);
    const opened = await openLink(
      secrets,
      new URL(fresh.url).searchParams.get('token') ?? '',
      new Date(),
    );
    if (!opened.ok) throw new Error('a fresh link did not open');
    const expiredToken = await sealLink(secrets, {
      ...opened.claims,
      linkId: newId(),
      expiresAt: new Date(Date.now() - 60_000),
    });
    const expired = await page.goto(
      `${server.baseUrl}/preferences/acme/open?token=${expiredToken}`,
    );
    expect(expired?.status()).toBe(410);
    expect(await page.locator('main p').first().textContent()).toContain('หมดอายุ');
    await expectNothingShown(page);

    const token = new URL(fresh.url).searchParams.get('token') ?? '';
    const altered = `${token.slice(0, -3)}${token.endsWith('AAA') ? 'BBB' : 'AAA'}`;
    const alteredAnswer = await page.goto(
      `${server.baseUrl}/preferences/acme/open?token=${altered}`,
    );
    expect(alteredAnswer?.status()).toBe(400);
    await expectNothingShown(page);

    const globexBackend = createConsentClient({
      baseUrl: server.baseUrl,
      apiKey: globex.apiKey.key,
    });
    const theirs = await globexBackend.preferenceLink(customer);
    const theirsAtAcme = new URL(theirs.url);
    theirsAtAcme.pathname = '/preferences/acme/open';
    const other = await page.goto(theirsAtAcme.toString());
    expect(other?.status()).toBe(400);
    await expectNothingShown(page);
    // No session came of any of them.
    const after = await page.goto(`${server.baseUrl}/preferences/globex`);
    expect(after?.status()).toBe(401);
    await context.close();
  });
});
