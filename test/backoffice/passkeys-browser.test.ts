/**
 * Passkeys in real Chromium with its virtual authenticators (DevTools protocol,
 * `WebAuthn.addVirtualAuthenticator`): a person adds one passkey on their laptop and one on their
 * phone, through the back-office's own page and script; signs out and back in with the laptop's,
 * typing no password; renames and removes the phone's. A page of another origin on the same host
 * gets the laptop's passkey to sign the service's challenge, and the service refuses that
 * answer. Passkeys need a secure context and a domain, not an IP address: the service is reached
 * as `localhost`.
 */
import { createServer, type Server } from 'node:http';
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/ports.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';
import { capture, desktop, launchChromium, watch } from './browser.js';
import { startBackofficeApp, tenantPassword } from './support.js';

const sqlite = stores.filter((s) => s.name === 'sqlite');

describe.each(sqlite)('passkeys in Chromium on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let base = '';
  let elsewhere: Server;
  let elsewhereOrigin = '';

  beforeAll(async () => {
    const port = await freePort();
    base = `http://localhost:${port}`;
    t = await startBackofficeApp(store, { PUBLIC_BASE_URL: base }, { port });
    a = await seedTenant(t.db);
    // Another site on the same host: the same relying party id (`localhost`), another origin.
    const otherPort = await freePort();
    elsewhere = createServer((_request, response) => {
      response.setHeader('content-type', 'text/html; charset=utf-8');
      response.end('<!doctype html><title>Look-alike</title><h1>Sign in</h1>');
    });
    await new Promise<void>((resolve) => elsewhere.listen(otherPort, '127.0.0.1', resolve));
    elsewhereOrigin = `http://localhost:${otherPort}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => elsewhere?.close(resolve));
    await t?.close();
  });

  /** A page with its own virtual authenticator: a platform one that verifies the person. */
  async function device(context: BrowserContext): Promise<{ page: Page; cdp: CDPSession }> {
    const page = await context.newPage();
    page.setDefaultTimeout(budget(10_000));
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    return { page, cdp };
  }

  const signInWithPassword = async (page: Page) => {
    await page.goto(`${base}/backoffice/sign-in`);
    await page.getByLabel('E-mail').fill(a.tenant.email);
    await page.getByLabel('Password').fill(tenantPassword);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${base}/backoffice/dashboard`);
  };

  const addPasskey = async (page: Page, name: string) => {
    await page.goto(`${base}/backoffice/account/passkeys`);
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByText('Passkey added.').waitFor();
  };

  it('adds a passkey on two devices, signs in with one and no password, renames and removes; another origin’s answer is refused', async () => {
    const browser = await launchChromium();
    try {
      const laptopContext = await browser.newContext({ viewport: desktop });
      const laptop = await device(laptopContext);
      const console = watch(laptop.page);
      await signInWithPassword(laptop.page);
      await addPasskey(laptop.page, 'Laptop');

      const phoneContext = await browser.newContext({ viewport: desktop });
      const phone = await device(phoneContext);
      await signInWithPassword(phone.page);
      await addPasskey(phone.page, 'Phone');
      const rows = phone.page.locator('tbody tr');
      expect(await rows.count()).toBe(2);
      expect(await rows.allInnerTexts()).toEqual([
        expect.stringContaining('Laptop'),
        expect.stringContaining('Phone'),
      ]);
      await capture(phone.page, 'passkeys-list');

      // The laptop signs out, and back in with its passkey: no e-mail, no password typed.
      await laptop.page.getByText('Account', { exact: true }).click();
      await laptop.page.getByRole('button', { name: 'Sign out' }).click();
      await laptop.page.waitForURL(/\/backoffice\/sign-in/);
      await laptop.page.getByRole('button', { name: 'Use a passkey' }).click();
      await laptop.page.waitForURL(`${base}/backoffice/dashboard`);
      await laptop.page.goto(`${base}/backoffice/account/sessions`);
      expect(await laptop.page.locator('main').innerText()).toContain('Passkey');
      const signIn = await t.db
        .selectFrom('audit_log')
        .select('details')
        .where('tenant_id', '=', a.tenant.id)
        .where('action', '=', 'sign_in')
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      expect(JSON.parse(signIn.details ?? '{}')).toEqual({ method: 'passkey' });

      // The phone's passkey: renamed, then removed.
      await phone.page.goto(`${base}/backoffice/account/passkeys`);
      await phone.page.getByLabel('New name of Phone').fill('Old phone');
      await phone.page.getByRole('button', { name: 'Rename' }).nth(1).click();
      await phone.page.getByText('Passkey renamed.').waitFor();
      await phone.page.getByRole('button', { name: 'Remove Old phone' }).click();
      await phone.page.getByText('Passkey removed').waitFor();
      expect(await phone.page.locator('tbody tr').allInnerTexts()).toEqual([
        expect.stringContaining('Laptop'),
      ]);
      expect(console.problems).toEqual([]);

      // A look-alike page on another origin gets the laptop's passkey to sign the service's own
      // challenge (the relying party id, `localhost`, is the same): the service refuses it.
      const signInPage = await fetch(`${base}/backoffice/sign-in`);
      const csrf = /name="_csrf" value="([^"]+)"/.exec(await signInPage.text())?.[1] ?? '';
      let cookies = signInPage.headers.getSetCookie().map((c) => c.split(';')[0]);
      const asked = await fetch(`${base}/backoffice/sign-in/passkey/options`, {
        method: 'POST',
        headers: { 'csrf-token': csrf, cookie: cookies.join('; ') },
      });
      expect(asked.status).toBe(200);
      cookies = [...cookies, ...asked.headers.getSetCookie().map((c) => c.split(';')[0])];
      const options = (await asked.json()) as { challenge: string; rpId: string };
      expect(options.rpId).toBe('localhost');
      await laptop.page.goto(`${elsewhereOrigin}/`);
      const answer = await laptop.page.evaluate(async (challenge) => {
        const bytes = (text: string) => {
          const b64 = text.replace(/-/g, '+').replace(/_/g, '/');
          const padded = b64 + '='.repeat((4 - (b64.length % 4)) % 4);
          return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
        };
        const text = (buffer: ArrayBuffer): string =>
          btoa(String.fromCharCode(...new Uint8Array(buffer)))
            .replace(/\+/g, '-')
            .replace(/\//g, '_')
            .replace(/=+$/, '');
        // The page's own globals, which this file's TypeScript (Node's) does not declare.
        const browserSide = globalThis as any;
        const credential = await browserSide.navigator.credentials.get({
          publicKey: {
            challenge: bytes(challenge),
            rpId: 'localhost',
            userVerification: 'required',
          },
        });
        const response = credential.response;
        return {
          id: credential.id as string,
          rawId: text(credential.rawId),
          type: credential.type as string,
          response: {
            clientDataJSON: text(response.clientDataJSON),
            authenticatorData: text(response.authenticatorData),
            signature: text(response.signature),
            ...(response.userHandle ? { userHandle: text(response.userHandle) } : {}),
          },
          clientExtensionResults: {},
        };
      }, options.challenge);
      const clientData = JSON.parse(
        Buffer.from(answer.response.clientDataJSON, 'base64url').toString('utf8'),
      );
      expect(clientData).toMatchObject({ origin: elsewhereOrigin, challenge: options.challenge });
      const relayed = await fetch(`${base}/backoffice/sign-in/passkey`, {
        method: 'POST',
        headers: {
          cookie: cookies.join('; '),
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ _csrf: csrf, credential: JSON.stringify(answer), next: '' }),
        redirect: 'manual',
      });
      expect(relayed.status).toBe(401);
      expect(await relayed.text()).toContain('This passkey was not accepted');
      expect(relayed.headers.getSetCookie().join(' ')).not.toContain('backoffice_session=');
      const refusal = await t.db
        .selectFrom('audit_log')
        .select('details')
        .where('tenant_id', '=', a.tenant.id)
        .where('action', '=', 'sign_in.failed')
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      expect(JSON.parse(refusal.details ?? '{}')).toMatchObject({
        method: 'passkey',
        reason: 'not_verified',
      });
    } finally {
      await browser.close();
    }
  });
});
