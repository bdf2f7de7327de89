/**
 * A configuration's banner preview over HTTP: the frames its page shows, and the documents in
 * them, which run the real banner script with the configuration's content and nowhere to record
 * a choice, for the tenant's users alone. What the frames show in Chromium is in
 * test/e2e/cookies-backoffice.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConfiguration, createSystem } from '../../src/cookies/index.js';
import type { TestApp } from '../helpers/app.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { storeAgnostic } from '../helpers/stores.js';
import { PageClient, signedIn, startBackofficeApp } from './support.js';

describe.each(storeAgnostic)('the banner preview on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let b: SeededTenant;
  let admin: PageClient;
  let page = '';
  const preview = (locale: string, layer: string) =>
    `${page}/preview?locale=${locale}&layer=${layer}`;

  beforeAll(async () => {
    t = await startBackofficeApp(store);
    a = await seedTenant(t.db);
    b = await seedTenant(t.db);
    admin = await signedIn(t.app, a.tenant.email);
    const by = {
      tenantId: a.tenant.id,
      actorKind: 'operator',
      actor: 'test',
      ip: 'local',
      userAgent: null,
    } as const;
    const banner = await t.db.transaction().execute(async (trx) => {
      const system = await createSystem(
        trx,
        a.tenant.id,
        { name: 'Bank website', origins: ['https://www.bank.example'] },
        by,
      );
      return createConfiguration(
        trx,
        a.tenant.id,
        { system: system.scope, name: 'Banner' },
        { ...by, userId: null },
      );
    });
    page = `/backoffice/cookies/configurations/${banner.id}`;
  });
  afterAll(() => t?.close());

  it("a draft's page frames its banner per locale, layer and width, sandboxed to scripts alone, and lets frames of this site in", async () => {
    const response = await admin.get(page);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-security-policy']).toContain("frame-src 'self'");
    const frames = [...response.body.matchAll(/<iframe ([^>]*)><\/iframe>/g)].map((m) => m[1]);
    const src = (frame: string | undefined) =>
      /src="([^"]*)"/.exec(frame ?? '')?.[1]?.replaceAll('&amp;', '&');
    expect(frames.map((frame) => [src(frame), /width="(\d+)"/.exec(frame ?? '')?.[1]])).toEqual(
      ['en', 'th'].flatMap((locale) =>
        ['first', 'preferences'].flatMap((layer) =>
          ['390', '1280'].map((width) => [preview(locale, layer), width]),
        ),
      ),
    );
    for (const frame of frames) expect(frame).toContain('sandbox="allow-scripts"');
  });

  it('a preview is the banner script with the content, marked preview with nowhere to record to, under a policy of its own', async () => {
    const response = await admin.get(preview('th', 'preferences'));
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    const policy = String(response.headers['content-security-policy']);
    const nonce = /script-src 'nonce-([A-Za-z0-9+/=]+)'/.exec(policy)?.[1];
    expect(policy).toBe(
      `default-src 'none'; script-src 'nonce-${nonce}'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'; sandbox allow-scripts`,
    );
    expect(response.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(response.headers['origin-agent-cluster']).toBeUndefined();
    expect(response.body).toContain(`<script nonce="${nonce}" data-locale="th">`);
    expect(response.body).toContain('"decisions_url":""');
    expect(response.body).toContain('"preview":true');
    expect(response.body).toContain('การตั้งค่าคุกกี้');
    expect(response.body).toContain(`<script nonce="${nonce}">window.Consentrix.open();</script>`);
    const first = await admin.get(preview('en', 'first'));
    expect(first.statusCode).toBe(200);
    expect(first.body).toContain('data-locale="en"');
    expect(first.body).not.toContain('Consentrix.open()');
    // A fresh nonce each time: a policy never allows a script another answer carried.
    expect(first.headers['content-security-policy']).not.toContain(nonce);
  });

  it("another tenant's configuration, a locale it has no texts in and a layer that is none are not found (404)", async () => {
    expect((await admin.get(preview('en', 'first'))).statusCode).toBe(200);
    const other = await signedIn(t.app, b.tenant.email);
    const refused = await other.get(preview('en', 'first'));
    expect(refused.statusCode).toBe(404);
    expect(refused.body).not.toContain('Consentrix');
    expect((await admin.get(preview('fr', 'first'))).statusCode).toBe(404);
    expect((await admin.get(preview('en', 'second'))).statusCode).toBe(404);
  });

  it('a signed-out browser is sent to sign in and gets no banner', async () => {
    const visitor = new PageClient(t.app);
    const response = await visitor.get(preview('en', 'first'));
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe(
      `/backoffice/sign-in?next=${encodeURIComponent(preview('en', 'first'))}`,
    );
    expect(response.body).not.toContain('Consentrix');
  });
});
