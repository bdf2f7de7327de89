import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiOf } from '../helpers/api.js';
import { expectErrorShape, type TestApp } from '../helpers/app.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { storeAgnostic } from '../helpers/stores.js';
import { PageClient, signedIn, startBackofficeApp, textOf } from './support.js';

describe.each(storeAgnostic)('back-office pages as HTTP on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let code: string;

  beforeAll(async () => {
    t = await startBackofficeApp(store);
    a = await seedTenant(t.db);
    code = await seedTemplate(t.db, a.tenant.id);
  });
  afterAll(async () => {
    await t.close();
  });

  const expectHtmlPage = (response: Awaited<ReturnType<PageClient['get']>>) => {
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(String(response.headers['content-security-policy'])).toContain("script-src 'self'");
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['x-request-id']).toBeTruthy();
  };

  it('an unknown back-office page answers a 404 HTML page, while an unknown API path keeps the JSON error', async () => {
    const page = await new PageClient(t.app).get('/backoffice/no-such-page');
    expect(page.statusCode).toBe(404);
    expectHtmlPage(page);
    expect(textOf(page.body)).toContain('Page not found');
    const signedInPage = await (await signedIn(t.app, a.tenant.email)).get(
      '/backoffice/templates/x/y/z',
    );
    expect(signedInPage.statusCode).toBe(404);
    expectHtmlPage(signedInPage);
    const api = await t.app.inject({ method: 'GET', url: '/api/no-such-path' });
    expect(api.statusCode).toBe(404);
    expect(expectErrorShape(api)).toEqual({ code: '1004', message: 'Not found.' });
  });

  it('a known back-office path with another method answers a 405 HTML page with Allow', async () => {
    const response = await t.app.inject({ method: 'DELETE', url: '/backoffice/sign-in' });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe('GET, HEAD, POST');
    expectHtmlPage(response);
  });

  it('signed in, the 403, 404 and 405 pages keep the navigation and a working sign-out form', async () => {
    const user = await signedIn(t.app, a.tenant.email);
    const answers = [
      ['GET', '/backoffice/no-such-page', 404],
      ['GET', '/backoffice/templates/no_such_template', 404],
      ['GET', '/backoffice/operator/tenants', 403],
      ['DELETE', '/backoffice/templates', 405],
    ] as const;
    for (const [method, url, status] of answers) {
      const response =
        method === 'GET'
          ? await user.get(url)
          : await t.app.inject({
              method,
              url,
              headers: { cookie: [...user.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
            });
      expect(response.statusCode, url).toBe(status);
      expectHtmlPage(response);
      expect(response.body, url).toContain('<nav aria-label="Main">');
      expect(response.body, url).toContain(`href="/backoffice/dashboard"`);
      expect(textOf(response.body), url).toContain(a.tenant.alias);
      expect(response.body, url).toContain('action="/backoffice/sign-out"');
    }
    // The sign-out form of an unrouted path's 404 page carries a token the service accepts.
    await user.get('/backoffice/no-such-page');
    const signOut = await user.post('/backoffice/sign-out', {});
    expect(signOut.statusCode).toBe(303);
    expect((await user.get('/backoffice/dashboard')).headers.location).toMatch(
      /^\/backoffice\/sign-in/,
    );
  });

  it('without a valid session, error pages show no navigation, only the service name', async () => {
    const visitor = new PageClient(t.app);
    const unknownSession = new PageClient(t.app);
    unknownSession.cookies.set('backoffice_session', 'x'.repeat(43));
    for (const client of [visitor, unknownSession]) {
      const response = await client.get('/backoffice/no-such-page');
      expect(response.statusCode).toBe(404);
      expect(response.body).toContain('<nav aria-label="Site">');
      expect(response.body).not.toContain('<nav aria-label="Main">');
      expect(response.body).not.toContain('/backoffice/sign-out');
    }
  });

  it("the dashboard chart's y-axis counts in whole numbers: five decisions in a day read 0, 2, 4, 6", async () => {
    const b = await seedTenant(t.db);
    const chartCode = await seedTemplate(t.db, b.tenant.id);
    const version = await publish(t.db, b.tenant.id, chartCode);
    const api = apiOf(t.app, b.headers);
    for (const customer of ['c1', 'c2', 'c3', 'c4', 'c5']) {
      expect((await api.decide(customer, version.consent_version_id, 'given')).statusCode).toBe(
        201,
      );
    }
    const page = await (await signedIn(t.app, b.tenant.email)).get('/backoffice/dashboard');
    expect(page.statusCode).toBe(200);
    // The y-axis labels are the chart's only texts that are plain numbers (days read MM-DD).
    const numbers = [...page.body.matchAll(/<text\b[^>]*>(\d[^<]*)<\/text>/g)]
      .map((m) => m[1] ?? '')
      .filter((text) => /^[\d.]+$/.test(text));
    expect(numbers).toEqual(['0', '2', '4', '6']);
  });

  it('the API still refuses a form body (415 in its JSON shape): forms are read only under /backoffice', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/customers/c1/consents/decisions',
      headers: { ...a.headers, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'consent_version_id=x&decision=given',
    });
    expect(response.statusCode).toBe(415);
    expect(expectErrorShape(response).code).toBe('1007');
  });

  it('a form larger than the limit answers a 413 HTML page', async () => {
    const client = new PageClient(t.app);
    await client.get('/backoffice/sign-in');
    const response = await client.post('/backoffice/sign-in', {
      email: 'x@example.test',
      password: 'p'.repeat(20_000),
    });
    expect(response.statusCode).toBe(413);
    expectHtmlPage(response);
  });

  it('the root of the back-office sends a visitor to sign in, and a signed-in user to the dashboard', async () => {
    const visitor = await new PageClient(t.app).get('/backoffice');
    expect(visitor.statusCode).toBe(303);
    expect(visitor.headers.location).toBe('/backoffice/sign-in');
    const user = await signedIn(t.app, a.tenant.email);
    expect((await user.get('/backoffice/')).headers.location).toBe('/backoffice/dashboard');
  });

  it('the styles and scripts are served from the npm packages and the app, with no CDN', async () => {
    const pico = await t.app.inject({ method: 'GET', url: '/backoffice/assets/pico.min.css' });
    expect(pico.statusCode).toBe(200);
    expect(pico.headers['content-type']).toMatch(/^text\/css/);
    expect(pico.body).toContain('Pico CSS');
    const app = await t.app.inject({ method: 'GET', url: '/backoffice/assets/app.css' });
    expect(app.statusCode).toBe(200);
    const again = await t.app.inject({
      method: 'GET',
      url: '/backoffice/assets/app.css',
      headers: { 'if-none-match': String(app.headers.etag) },
    });
    expect(again.statusCode).toBe(304);
    const htmx = await t.app.inject({ method: 'GET', url: '/backoffice/assets/htmx.min.js' });
    expect(htmx.statusCode).toBe(200);
    expect(htmx.headers['content-type']).toMatch(/javascript/);
    expect(htmx.body).toContain('htmx');
    const script = await t.app.inject({ method: 'GET', url: '/backoffice/assets/app.js' });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.body).toContain('data-copy');
    expect(script.body).toContain('form[data-passkey]');
    const webauthn = await t.app.inject({
      method: 'GET',
      url: '/backoffice/assets/webauthn.min.js',
    });
    expect(webauthn.statusCode).toBe(200);
    expect(webauthn.headers['content-type']).toMatch(/javascript/);
    expect(webauthn.body).toContain('SimpleWebAuthnBrowser');
    const unknown = await t.app.inject({ method: 'GET', url: '/backoffice/assets/other.js' });
    expect(unknown.statusCode).toBe(404);
  });

  it('no page has an inline script, an inline style or a resource from another site, and every field has a label', async () => {
    const user = await signedIn(t.app, a.tenant.email);
    const pages = [
      '/backoffice/dashboard',
      '/backoffice/templates',
      '/backoffice/templates/new',
      `/backoffice/templates/${code}`,
      `/backoffice/templates/${code}/versions/new`,
      '/backoffice/api-keys',
      '/backoffice/customers?customer_id=someone',
      '/backoffice/exports',
      '/backoffice/audit',
      '/backoffice/log',
      '/backoffice/account/password',
      '/backoffice/account/passkeys',
      '/backoffice/settings/sign-in',
    ];
    for (const url of pages) {
      const response = await user.get(url);
      expect(response.statusCode, url).toBe(200);
      expectHtmlPage(response);
      const body = response.body;
      // Scripts only as files of this site (htmx, WebAuthn's and the app's own), never inline.
      const scripts = [...body.matchAll(/<script\b[^>]*>[^<]*<\/script>/gi)].map((m) => m[0]);
      expect(scripts, url).toEqual([
        '<script src="/backoffice/assets/htmx.min.js" defer></script>',
        '<script src="/backoffice/assets/webauthn.min.js" defer></script>',
        '<script src="/backoffice/assets/app.js" defer></script>',
      ]);
      expect(body.match(/<script/gi)?.length, url).toBe(3);
      expect(body, url).not.toMatch(/\sstyle=|\son[a-z]+=|javascript:|hx-on/i);
      expect(body, url).not.toMatch(/(src|href)="(https?:)?\/\//);
      expect(body, url).toContain('<html lang="en">');
      const ids = [
        ...body.matchAll(/<(?:input|textarea|select)\b(?![^>]*type="hidden")[^>]*\sid="([^"]+)"/g),
      ].map((m) => m[1]);
      for (const id of ids) expect(body, `${url} #${id}`).toContain(`<label for="${id}"`);
    }
  });
});
