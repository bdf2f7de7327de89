import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiOf } from '../helpers/api.js';
import type { TestApp } from '../helpers/app.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { storeAgnostic } from '../helpers/stores.js';
import { type PageClient, signedIn, startBackofficeApp, textOf } from './support.js';

const keyPattern = /csk_[0-9a-f]{12}_[A-Za-z0-9_-]{43}/;

describe.each(storeAgnostic)('creating API keys in the back-office on $name', (store) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startBackofficeApp(store);
  });
  afterAll(async () => {
    await t.close();
  });

  async function tenantWithPage(): Promise<{ a: SeededTenant; page: PageClient; code: string }> {
    const a = await seedTenant(t.db);
    const page = await signedIn(t.app, a.tenant.email);
    const code = await seedTemplate(t.db, a.tenant.id);
    await publish(t.db, a.tenant.id, code, { tag: '1.0' });
    return { a, page, code };
  }

  const keysOf = (tenantId: string) =>
    t.db
      .selectFrom('api_keys')
      .select(['id', 'name', 'revoked_at'])
      .where('tenant_id', '=', tenantId)
      .execute();

  it('creating a key answers 303 to a page that shows the key once; reloading it shows no key and makes no second one', async () => {
    const { a, page, code } = await tenantWithPage();
    const made = await page.submit('/backoffice/api-keys', '/backoffice/api-keys', {
      name: 'web shop',
    });
    expect(made.statusCode).toBe(303);
    const location = String(made.headers.location);
    expect(location).toMatch(/^\/backoffice\/api-keys\/[0-9a-f-]{36}$/);
    expect(made.body).not.toMatch(keyPattern);

    const first = await page.get(location);
    expect(first.statusCode).toBe(200);
    expect(first.headers['cache-control']).toBe('no-store');
    const key = keyPattern.exec(first.body)?.[0] ?? '';
    expect(key).not.toBe('');
    expect(textOf(first.body)).toContain('it is shown only this once');
    expect((await apiOf(t.app, { 'x-system-api-key': key }).latest(code)).statusCode).toBe(200);

    const reload = await page.get(location);
    expect(reload.statusCode).toBe(200);
    expect(reload.body).not.toMatch(keyPattern);
    expect(textOf(reload.body)).toContain('web shop');
    expect(textOf(reload.body)).toContain(key.slice(0, 16));
    expect(textOf(reload.body)).toContain('was shown once, when it was created');
    // The seeded key and the one made here: the reload made none.
    expect((await keysOf(a.tenant.id)).map((k) => k.name).sort()).toEqual(['test key', 'web shop']);
  });

  it("the key's page shows the key to the browser that made it only: another session of the tenant sees no key", async () => {
    const { a, page } = await tenantWithPage();
    const made = await page.submit('/backoffice/api-keys', '/backoffice/api-keys', {
      name: 'mobile app',
    });
    const location = String(made.headers.location);
    const other = await signedIn(t.app, a.tenant.email);
    const seen = await other.get(location);
    expect(seen.statusCode).toBe(200);
    expect(seen.body).not.toMatch(keyPattern);
    // Still there for the browser that made it, once.
    expect((await page.get(location)).body).toMatch(keyPattern);
  });

  it("another tenant's key page answers 404", async () => {
    const { page } = await tenantWithPage();
    const { page: intruder } = await tenantWithPage();
    const made = await page.submit('/backoffice/api-keys', '/backoffice/api-keys', {
      name: 'mine',
    });
    expect((await intruder.get(String(made.headers.location))).statusCode).toBe(404);
  });

  it('a name used by an active key of the tenant is refused with a form message (400) and no key is made', async () => {
    const { a, page } = await tenantWithPage();
    expect(
      (await page.submit('/backoffice/api-keys', '/backoffice/api-keys', { name: 'crm' }))
        .statusCode,
    ).toBe(303);
    const again = await page.submit('/backoffice/api-keys', '/backoffice/api-keys', {
      name: 'crm',
    });
    expect(again.statusCode).toBe(400);
    expect(again.body).not.toMatch(keyPattern);
    expect(textOf(again.body)).toContain('An active key named "crm" already exists.');
    expect(again.body).toContain('value="crm"');
    expect((await keysOf(a.tenant.id)).filter((k) => k.name === 'crm')).toHaveLength(1);
  });

  it("another tenant may use the same name, and a revoked key's name may be used again", async () => {
    const { a, page } = await tenantWithPage();
    const { page: otherPage } = await tenantWithPage();
    const made = await page.submit('/backoffice/api-keys', '/backoffice/api-keys', {
      name: 'billing',
    });
    expect(
      (await otherPage.submit('/backoffice/api-keys', '/backoffice/api-keys', { name: 'billing' }))
        .statusCode,
    ).toBe(303);
    const id = /\/api-keys\/([0-9a-f-]{36})$/.exec(String(made.headers.location))?.[1] ?? '';
    await page.submit(`/backoffice/api-keys/${id}/revoke`, `/backoffice/api-keys/${id}/revoke`, {});
    const replacement = await page.submit('/backoffice/api-keys', '/backoffice/api-keys', {
      name: 'billing',
    });
    expect(replacement.statusCode).toBe(303);
    const billing = (await keysOf(a.tenant.id)).filter((k) => k.name === 'billing');
    expect(billing).toHaveLength(2);
    expect(billing.filter((k) => k.revoked_at === null)).toHaveLength(1);
  });

  it('a key shows both ends (prefix and last four characters); renaming keeps its secret, refuses a name an active key has, and is audited', async () => {
    const { a, page, code } = await tenantWithPage();
    const made = await page.submit('/backoffice/api-keys', '/backoffice/api-keys', {
      name: 'mobile app',
    });
    const shown = await page.get(String(made.headers.location));
    const key = keyPattern.exec(shown.body)?.[0] ?? '';
    const ends = `${key.slice(0, 16)}…${key.slice(-4)}`;
    const listed = await page.get('/backoffice/api-keys');
    expect(textOf(listed.body)).toContain(`mobile app ${ends}`);
    const id =
      /\/backoffice\/api-keys\/([0-9a-f-]{36})/.exec(String(made.headers.location))?.[1] ?? '';

    await page.get(`/backoffice/api-keys/${id}`);
    const taken = await page.post(`/backoffice/api-keys/${id}`, { name: 'test key' });
    expect(taken.statusCode).toBe(400);
    expect(textOf(taken.body)).toContain('An active key named "test key" already exists.');
    const renamed = await page.post(`/backoffice/api-keys/${id}`, { name: 'iOS app' });
    expect(renamed.statusCode).toBe(303);
    expect(textOf((await page.get(String(renamed.headers.location))).body)).toContain(
      `Key "iOS app" Key ${ends}`,
    );
    // The same secret still works.
    const latest = await apiOf(t.app, { 'x-system-api-key': key }).latest(code);
    expect(latest.statusCode).toBe(200);
    const audit = await t.db
      .selectFrom('audit_log')
      .select('details')
      .where('tenant_id', '=', a.tenant.id)
      .where('action', '=', 'api_key.renamed')
      .executeTakeFirstOrThrow();
    expect(JSON.parse(audit.details ?? '{}')).toMatchObject({ from: 'mobile app', to: 'iOS app' });
  });

  it('the list is searched by part of a name, in any case; % and _ match only themselves', async () => {
    const { page } = await tenantWithPage();
    for (const name of ['Web shop', 'web_checkout', 'Point of sale', '100% app']) {
      expect(
        (await page.submit('/backoffice/api-keys', '/backoffice/api-keys', { name })).statusCode,
      ).toBe(303);
    }
    const names = async (q: string) =>
      [
        ...(await page.get(`/backoffice/api-keys?q=${encodeURIComponent(q)}`)).body.matchAll(
          /<td class="wrap"><a [^>]*>([^<]+)<\/a><\/td>/g,
        ),
      ].map((m) => m[1]);
    expect(await names('WEB')).toEqual(['web_checkout', 'Web shop']);
    expect(await names('_')).toEqual(['web_checkout']);
    expect(await names('%')).toEqual(['100% app']);
    expect(await names('nothing like it')).toEqual([]);
    expect(await names('')).toHaveLength(5);
  });

  it('the list finds a key by its prefix (or its start) and by its last four characters', async () => {
    const { page } = await tenantWithPage();
    const made: Record<string, string> = {};
    for (const name of ['Kiosk', 'Call centre']) {
      const created = await page.submit('/backoffice/api-keys', '/backoffice/api-keys', { name });
      const shown = await page.get(String(created.headers.location));
      made[name] = keyPattern.exec(shown.body)?.[0] ?? '';
    }
    const names = async (q: string) =>
      [
        ...(await page.get(`/backoffice/api-keys?q=${encodeURIComponent(q)}`)).body.matchAll(
          /<td class="wrap"><a [^>]*>([^<]+)<\/a><\/td>/g,
        ),
      ].map((m) => m[1]);
    const kiosk = made.Kiosk ?? '';
    expect(kiosk).toMatch(keyPattern);
    const prefix = kiosk.slice(0, 16);
    expect(await names(prefix)).toEqual(['Kiosk']);
    expect(await names(prefix.slice(4, 12).toUpperCase())).toEqual(['Kiosk']);
    expect(await names(kiosk.slice(-4))).toEqual(['Kiosk']);
    const search = await page.get('/backoffice/api-keys');
    expect(textOf(search.body)).toContain('Search keys by name, prefix or last four characters');
  });
});
