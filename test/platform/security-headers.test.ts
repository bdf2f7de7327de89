import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { storeAgnostic } from '../helpers/stores.js';

describe.each(storeAgnostic)('security headers on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let code: string;
  let fileUrl: string;

  beforeAll(async () => {
    t = await startTestApp(store);
    a = await seedTenant(t.db);
    code = await seedTemplate(t.db, a.tenant.id);
    fileUrl = (await publish(t.db, a.tenant.id, code)).file_url;
  });
  afterAll(async () => {
    await t.close();
  });

  it.each([
    [
      'a success',
      () => ({
        method: 'GET' as const,
        url: `/api/v1/consent-templates/${code}/latest`,
        headers: a.headers,
      }),
    ],
    ['the health check', () => ({ method: 'GET' as const, url: '/api/health' })],
    ['an error', () => ({ method: 'GET' as const, url: '/api/v1/nothing-here' })],
    ['an unknown route', () => ({ method: 'GET' as const, url: '/nothing-here' })],
  ])('are on %s', async (_what, request) => {
    const response = await t.app.inject(request());
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['strict-transport-security']).toMatch(/max-age=\d+/);
    expect(response.headers['content-security-policy']).toBeTruthy();
    expect(response.headers['referrer-policy']).toBe('no-referrer');
    expect(response.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(response.headers['cross-origin-resource-policy']).toBe('cross-origin');
  });

  it('the content file may be framed by client sites but runs nothing', async () => {
    const response = await t.app.inject({ method: 'GET', url: new URL(fileUrl).pathname });
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-frame-options']).toBeUndefined();
    expect(response.headers['content-security-policy']).toBe(
      "default-src 'none'; img-src http: https:; sandbox",
    );
    expect(response.headers['x-content-type-options']).toBe('nosniff');
  });
});
