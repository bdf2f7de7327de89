/**
 * The cookie declaration of a system's published configuration, through the real HTTP stack:
 * as JSON any origin may read (the banner's preferences fetch it), and as a page per locale that
 * the system's own origins may frame. The banner script names where to fetch it only when the
 * configuration lists a cookie.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultContent } from '../../src/cookies/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedPublishedSystem } from '../helpers/cookies.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';

function declaredContent() {
  const content = defaultContent(['analytics', 'marketing']);
  return {
    ...content,
    categories: content.categories.map((c) =>
      c.key === 'analytics'
        ? {
            ...c,
            cookies: [
              {
                name: '_ga',
                domain: '.shop.example',
                provider: 'Google',
                retention: '2 years',
                purpose: { en: 'Tells visitors apart', th: 'แยกแยะผู้เข้าชมแต่ละคน' },
              },
              { name: '_ga_*', provider: 'Google' },
            ],
          }
        : c.key === 'necessary'
          ? { ...c, cookies: [{ name: 'session_id', provider: 'Tea shop', retention: 'Session' }] }
          : c,
    ),
  };
}

describe.each(stores)('the cookie declaration on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;

  beforeAll(async () => {
    t = await startTestApp(store);
    a = await seedTenant(t.db);
  });
  afterAll(() => t?.close());

  it('as JSON: each category with its cookies, who, how long, what for by locale; any origin may read it', async () => {
    const site = await seedPublishedSystem(t.db, a.tenant.id, {
      origins: ['https://www.shop.example'],
      content: declaredContent(),
    });
    const response = await t.app.inject({
      method: 'GET',
      url: `/cookies/v1/${site.scope}/declaration.json`,
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['access-control-allow-origin']).toBe('*');
    expect(response.headers['cache-control']).toBe(
      'public, max-age=240, stale-while-revalidate=60',
    );
    const body = response.json();
    expect(body).toMatchObject({
      configuration_id: site.configurationId,
      version: site.version,
      default_locale: 'en',
      locales: ['en', 'th'],
    });
    expect(body.categories.map((c: { key: string }) => c.key)).toEqual([
      'necessary',
      'analytics',
      'marketing',
    ]);
    expect(body.categories[0].cookies).toEqual([
      { name: 'session_id', domain: null, provider: 'Tea shop', retention: 'Session', purpose: {} },
    ]);
    expect(body.categories[1].cookies).toEqual([
      {
        name: '_ga',
        domain: '.shop.example',
        provider: 'Google',
        retention: '2 years',
        purpose: { en: 'Tells visitors apart', th: 'แยกแยะผู้เข้าชมแต่ละคน' },
      },
      { name: '_ga_*', domain: null, provider: 'Google', retention: null, purpose: {} },
    ]);
    expect(body.categories[2].cookies).toEqual([]);

    // The banner names where to fetch it; its script carries no provider, retention or purpose.
    const script = await t.app.inject({
      method: 'GET',
      url: `/cookies/v1/${site.scope}/banner.js`,
    });
    expect(script.body).toContain(
      `"declaration_url":"https://consent.test/cookies/v1/${site.scope}/declaration.json"`,
    );
    expect(script.body).not.toContain('Tells visitors apart');
    expect(script.body).not.toContain('session_id');
  });

  it('as a page in Thai (or the default for a locale it has not), framed only by the system’s origins', async () => {
    const site = await seedPublishedSystem(t.db, a.tenant.id, {
      origins: ['https://www.shop.example', 'https://m.shop.example'],
      content: declaredContent(),
    });
    const page = await t.app.inject({
      method: 'GET',
      url: `/cookies/v1/${site.scope}/declaration?locale=th`,
    });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-language']).toBe('th');
    expect(page.headers['content-security-policy']).toBe(
      "default-src 'none';style-src 'unsafe-inline';base-uri 'none';form-action 'none';frame-ancestors 'self' https://www.shop.example https://m.shop.example",
    );
    expect(page.headers['x-frame-options']).toBeUndefined();
    expect(page.body).toContain('<html lang="th">');
    expect(page.body).toContain('<h1>รายการคุกกี้</h1>');
    expect(page.body).toContain(
      '<tr><td><code>_ga</code><br><small>.shop.example</small></td><td>Google</td><td>2 years</td><td>แยกแยะผู้เข้าชมแต่ละคน</td></tr>',
    );
    expect(page.body).not.toContain('<script');
    const other = await t.app.inject({
      method: 'GET',
      url: `/cookies/v1/${site.scope}/declaration?locale=de`,
    });
    expect(other.headers['content-language']).toBe('en');
    expect(other.body).toContain('<h1>Cookie declaration</h1>');
    expect(other.body).toContain('<td>Tells visitors apart</td>');
  });

  it('a configuration listing no cookie: an empty declaration, and the banner fetches none', async () => {
    const site = await seedPublishedSystem(t.db, a.tenant.id);
    const body = (
      await t.app.inject({ method: 'GET', url: `/cookies/v1/${site.scope}/declaration.json` })
    ).json();
    expect(body.categories.every((c: { cookies: unknown[] }) => c.cookies.length === 0)).toBe(true);
    const script = await t.app.inject({
      method: 'GET',
      url: `/cookies/v1/${site.scope}/banner.js`,
    });
    expect(script.body).not.toContain('"declaration_url":');
  });

  it('a scope no system has, or one with nothing published: 404 1004', async () => {
    for (const url of [
      '/cookies/v1/cs_00000000000000000000/declaration.json',
      '/cookies/v1/cs_00000000000000000000/declaration',
    ]) {
      const response = await t.app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ code: '1004' });
    }
  });
});
