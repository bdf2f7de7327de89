/**
 * The e-mail sign-in pages in real Chromium: each page as the service serves it (the address
 * form, a refused address, the code form, a code not of 6 digits, too many codes, a dead code,
 * and the page of no session that offers the sign-in), in English and Thai, passes axe at 1280
 * and 390 px and fits a phone's width.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/api-keys/index.js';
import { savePreferenceCentre } from '../../src/preference-centre/index.js';
import { fitsAndPassesAxe, launchChromium } from '../backoffice/browser.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { type SmtpListener, startSmtpServer } from '../helpers/smtp.js';
import { sqliteStore } from '../helpers/stores.js';

describe('the e-mail sign-in pages in Chromium', () => {
  let smtp: SmtpListener;
  let t: TestApp;
  let a: SeededTenant;
  let browser: Browser;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestApp(sqliteStore, { SMTP_URL: smtp.url });
    a = await seedTenant(t.db);
    const key = await createApiKey(t.db, a.tenant.id, { name: 'e-mail sign-in' });
    await t.db.transaction().execute((trx) =>
      savePreferenceCentre(
        trx,
        { tenantId: a.tenant.id, actorKind: 'tenant', actor: 'test', ip: 'local', userAgent: null },
        a.tenant.id,
        {
          display_name: 'Acme Mail',
          logo_url: null,
          accent_colour: null,
          header_colour: null,
          allowed_origins: [],
          email_key_id: key.id,
        },
      ),
    );
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await smtp?.close();
  });

  it.each(['en', 'th'])('each page passes axe and fits a phone, in %s', async (language) => {
    const base = `/preferences/${a.tenant.alias}`;
    const headers = { 'accept-language': language };
    const form = await t.app.inject({ method: 'GET', url: `${base}/sign-in`, headers });
    const cookie = String(form.headers['set-cookie']).split(';')[0] as string;
    const token = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1] ?? '';
    const post = (path: string, fields: Record<string, string>) =>
      t.app.inject({
        method: 'POST',
        url: `${base}/${path}`,
        headers: { ...headers, cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ _csrf: token, ...fields }).toString(),
      });
    const address = `axe-${language}@example.com`;
    const badAddress = await post('sign-in', { email: 'not an address' });
    const codeForm = await post('sign-in', { email: address });
    const codeId = /name="code_id" value="([^"]+)"/.exec(codeForm.body)?.[1] ?? '';
    const wrong = await post('code', { code_id: codeId, email: address, code: '12345' });
    for (let i = 0; i < 4; i += 1) await post('sign-in', { email: address });
    const tooMany = await post('sign-in', { email: address });
    expect(tooMany.statusCode).toBe(429);
    for (let i = 0; i < 3; i += 1) {
      await post('code', { code_id: codeId, email: address, code: '000000' });
    }
    const dead = await post('code', { code_id: codeId, email: address, code: '000001' });
    expect(dead.statusCode).toBe(410);
    const ended = await t.app.inject({ method: 'GET', url: base, headers });
    expect(ended.body).toContain(`href="${base}/sign-in"`);
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      for (const [name, body] of [
        ['address form', form.body],
        ['refused address', badAddress.body],
        ['code form', codeForm.body],
        ['code not of 6 digits', wrong.body],
        ['too many codes', tooMany.body],
        ['dead code', dead.body],
        ['no session, the way in by e-mail', ended.body],
      ] as const) {
        expect(body).toContain(`<html lang="${language}">`);
        await page.setContent(body);
        await fitsAndPassesAxe(page, `${language} ${name}`);
      }
    } finally {
      await context.close();
    }
  });
});
