/**
 * `GET /cookies/v1/{scope}/banner.js`: the published configuration written into the banner,
 * cacheable by any origin's page (a short public max-age, an ETag, 304), its GPC variant apart,
 * and 404 for a scope with nothing published.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorShape, startTestApp, type TestApp } from '../helpers/app.js';
import { type PublishedSystem, seedPublishedSystem } from '../helpers/cookies.js';
import { seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';

/** The configuration the script carries, read back from the JSON the service wrote into it. */
function carried(script: string): Record<string, any> {
  const start = script.indexOf('{"scope":');
  expect(start, 'the configuration is in the script').toBeGreaterThanOrEqual(0);
  // The JSON object is balanced; find its end by parsing growing prefixes up to the last brace.
  for (let end = script.indexOf('}', start); end !== -1; end = script.indexOf('}', end + 1)) {
    try {
      return JSON.parse(script.slice(start, end + 1));
    } catch {
      // not the end yet
    }
  }
  throw new Error('no configuration in the script');
}

describe.each(stores)('the banner script on $name', (store) => {
  let t: TestApp;
  let site: PublishedSystem;

  beforeAll(async () => {
    t = await startTestApp(store);
    const tenantId = (await seedTenant(t.db)).tenant.id;
    site = await seedPublishedSystem(t.db, tenantId, { categories: ['analytics', 'marketing'] });
  });
  afterAll(async () => t.close());

  const get = (headers: Record<string, string> = {}, scope = site.scope) =>
    t.app.inject({ method: 'GET', url: `/cookies/v1/${scope}/banner.js`, headers });

  it('answers JavaScript with the published configuration, cacheable by any page', async () => {
    const response = await get({ origin: 'https://anywhere.example' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(response.headers['cache-control']).toBe(
      'public, max-age=240, stale-while-revalidate=60',
    );
    expect(response.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(response.headers.etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(response.headers.vary).toBe('Sec-GPC');
    expect(response.body).not.toContain('__CONSENTRIX_CONFIG__');
    const config = carried(response.body);
    expect(config).toMatchObject({
      scope: site.scope,
      decisions_url: `https://consent.test/cookies/v1/${site.scope}/decisions`,
      configuration: { id: site.configurationId, version: 1 },
      gpc: false,
      lifetime_days: 365,
      default_locale: 'en',
    });
    expect(config.categories.map((c: { key: string }) => c.key)).toEqual([
      'necessary',
      'analytics',
      'marketing',
    ]);
    expect(Object.keys(config.texts).sort()).toEqual(['en', 'th']);
  });

  it('sends the script as UTF-8 bytes whose length the Content-Length header gives, Thai texts intact', async () => {
    const response = await get();
    const bytes = response.rawPayload;
    expect(Number(response.headers['content-length'])).toBe(bytes.length);
    // Thai is three bytes a character in UTF-8: the byte count is not the character count.
    expect(bytes.length).toBeGreaterThan(response.body.length);
    expect(new TextDecoder('utf-8', { fatal: true }).decode(bytes)).toBe(response.body);
    // The default Thai title of a new configuration (src/cookies/defaults.ts).
    expect(carried(response.body).texts.th.title).toBe('เราใช้คุกกี้');
  });

  it('answers 304 to the ETag it gave, and the GPC variant under another one', async () => {
    const first = await get();
    const again = await get({ 'if-none-match': String(first.headers.etag) });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    const gpc = await get({ 'sec-gpc': '1' });
    expect(gpc.statusCode).toBe(200);
    expect(gpc.headers.etag).not.toBe(first.headers.etag);
    expect(carried(gpc.body).gpc).toBe(true);
  });

  it.each([
    ['a scope no system has', 'cs_00000000000000000000'],
    ['a scope that is not one', '..%2F..%2Fetc'],
  ])('answers 404 1004 for %s', async (_name, scope) => {
    const response = await get({}, scope);
    expect(response.statusCode).toBe(404);
    expect(expectErrorShape(response).code).toBe('1004');
  });
});
