import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/platform/hashing.js';
import { withinPublishBound } from '../helpers/api.js';
import type { TestApp } from '../helpers/app.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { acceptAuditEntries, refuseAuditEntries } from '../helpers/store-faults.js';
import { storeAgnostic } from '../helpers/stores.js';
import {
  formToken,
  operator,
  PageClient,
  signedIn,
  startBackofficeApp,
  tenantPassword,
  textOf,
} from './support.js';

describe.each(storeAgnostic)('back-office sign-in and sessions on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;

  beforeAll(async () => {
    t = await startBackofficeApp(store);
    a = await seedTenant(t.db);
  });
  afterAll(async () => {
    await t.close();
  });

  const sessionsOf = (tenantId: string) =>
    t.db.selectFrom('backoffice_sessions').selectAll().where('tenant_id', '=', tenantId).execute();

  it('the sign-in page is HTML with labelled fields, a form token, a strict CSP and no caching', async () => {
    const response = await new PageClient(t.app).get('/backoffice/sign-in');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-store');
    const csp = String(response.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(response.body).toMatch(
      /<label for="email">E-mail<\/label>\s*<input type="email" id="email"/,
    );
    expect(response.body).toMatch(
      /<label for="password">Password<\/label>\s*<input type="password" id="password"/,
    );
    expect(formToken(response.body)).toBeTruthy();
    // Scripts only as files of this site.
    expect(response.body).not.toMatch(/<script(?![^>]* src="\/backoffice\/assets\/)/i);
    const setCookie = String(response.headers['set-cookie']);
    expect(setCookie).toMatch(/^__Host-backoffice_csrf=/);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    expect(setCookie).toMatch(/Secure/);
  });

  it("a tenant's user signs in with the tenant's e-mail (any case) and password and lands on the dashboard", async () => {
    const client = new PageClient(t.app);
    const response = await client.signIn(a.tenant.email.toUpperCase(), tenantPassword);
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/backoffice/dashboard');
    const cookie = (response.cookies as Array<Record<string, unknown>>).find(
      (c) => c.name === '__Host-backoffice_session',
    );
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', secure: true, path: '/' });
    const dashboard = await client.get('/backoffice/dashboard');
    expect(dashboard.statusCode).toBe(200);
    expect(textOf(dashboard.body)).toContain(a.tenant.alias);
  });

  it('keeps only a SHA-256 of the session cookie in the store, with who, when and from where', async () => {
    const client = await signedIn(t.app, a.tenant.email, tenantPassword, {
      ip: '203.0.113.7',
      userAgent: 'SessionTest/1.0',
    });
    const token = client.cookies.get('__Host-backoffice_session') ?? '';
    const rows = await sessionsOf(a.tenant.id);
    const row = rows.find((r) => r.id_hash === sha256Hex(token));
    expect(row).toMatchObject({
      tenant_id: a.tenant.id,
      operator_id: null,
      email: a.tenant.email,
      ip: '203.0.113.7',
      user_agent: 'SessionTest/1.0',
      revoked_at: null,
    });
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(Date.parse(row?.expires_at ?? '') - Date.parse(row?.created_at ?? '')).toBe(
      12 * 3_600_000,
    );
  });

  it('when the audit entry cannot be written, signing in fails and leaves no session behind', async () => {
    const b = await seedTenant(t.db);
    const client = new PageClient(t.app);
    await client.get('/backoffice/sign-in');
    await refuseAuditEntries(t.db);
    let response: Awaited<ReturnType<PageClient['post']>>;
    try {
      response = await client.post('/backoffice/sign-in', {
        email: b.tenant.email,
        password: tenantPassword,
      });
    } finally {
      await acceptAuditEntries(t.db);
    }
    expect(response.statusCode).toBe(500);
    expect(await sessionsOf(b.tenant.id)).toEqual([]);
  });

  it('a wrong password answers 401 with a message that does not say which part was wrong, and is audited', async () => {
    const client = new PageClient(t.app, { ip: '198.51.100.1' });
    const response = await client.signIn(a.tenant.email, 'not the password');
    expect(response.statusCode).toBe(401);
    expect(textOf(response.body)).toContain('The e-mail or the password is not right');
    expect(client.cookies.has('__Host-backoffice_session')).toBe(false);
    const unknown = await new PageClient(t.app, { ip: '198.51.100.1' }).signIn(
      'nobody@example.test',
      'not the password',
    );
    expect(unknown.statusCode).toBe(401);
    expect(textOf(unknown.body)).toContain('The e-mail or the password is not right');
    const audit = await t.db
      .selectFrom('audit_log')
      .selectAll()
      .where('tenant_id', '=', a.tenant.id)
      .where('action', '=', 'sign_in.failed')
      .execute();
    expect(audit.at(-1)).toMatchObject({ actor: a.tenant.email, ip: '198.51.100.1' });
  });

  it('an empty e-mail or password answers 400 naming each empty field, not a wrong password', async () => {
    const cases = [
      { email: '', password: '', named: ['Enter your e-mail.', 'Enter your password.'] },
      { email: '   ', password: tenantPassword, named: ['Enter your e-mail.'] },
      { email: a.tenant.email, password: '', named: ['Enter your password.'] },
    ];
    for (const { email, password, named } of cases) {
      const client = new PageClient(t.app);
      const response = await client.signIn(email, password);
      expect(response.statusCode, `${email}/${password}`).toBe(400);
      const text = textOf(response.body);
      expect(text).not.toContain('is not right');
      for (const message of ['Enter your e-mail.', 'Enter your password.']) {
        if (named.includes(message)) expect(text).toContain(message);
        else expect(text).not.toContain(message);
      }
      expect(client.cookies.has('__Host-backoffice_session')).toBe(false);
    }
    // The field in question is marked and described by its message; the e-mail is kept.
    const page = (await new PageClient(t.app).signIn(a.tenant.email, '')).body;
    expect(page).toMatch(/<input type="password" id="password"[^>]*aria-invalid="true"/);
    expect(page).toMatch(/<input type="email" id="email"(?![^>]*aria-invalid)[^>]*value="/);
    expect(page).toContain(`value="${a.tenant.email}"`);
  });

  it('an empty field is not a failed sign-in: it neither counts toward the throttle nor is audited', async () => {
    const c = await seedTenant(t.db);
    const ip = '198.51.100.77';
    for (let i = 0; i < 7; i += 1) {
      const response = await new PageClient(t.app, { ip }).signIn(c.tenant.email, '');
      expect(response.statusCode).toBe(400);
    }
    const counts = await t.db
      .selectFrom('sign_in_throttle')
      .selectAll()
      .where('key', 'in', [`account:${c.tenant.email}`, `address:${ip}`])
      .execute();
    expect(counts).toEqual([]);
    const failures = await t.db
      .selectFrom('audit_log')
      .selectAll()
      .where('tenant_id', '=', c.tenant.id)
      .where('action', '=', 'sign_in.failed')
      .execute();
    expect(failures).toEqual([]);
    // The account was never closed: the right password still signs in at once.
    expect(
      (await new PageClient(t.app, { ip }).signIn(c.tenant.email, tenantPassword)).statusCode,
    ).toBe(303);
  });

  it('a page without a session redirects to sign-in, and back to that page after signing in', async () => {
    const client = new PageClient(t.app);
    const page = await client.get('/backoffice/api-keys');
    expect(page.statusCode).toBe(303);
    expect(page.headers.location).toBe('/backoffice/sign-in?next=%2Fbackoffice%2Fapi-keys');
    const form = await client.get(String(page.headers.location));
    expect(form.body).toContain('value="/backoffice/api-keys"');
    const response = await client.post('/backoffice/sign-in', {
      email: a.tenant.email,
      password: tenantPassword,
      next: '/backoffice/api-keys',
    });
    expect(response.headers.location).toBe('/backoffice/api-keys');
  });

  it.each([
    ['another site', 'https://evil.example/'],
    ['a protocol-relative address', '//evil.example/backoffice/'],
    ['a backslash trick', '/backoffice/\\evil.example'],
    ['a path outside the back-office', '/api/health'],
  ])('after signing in, never redirects to %s', async (_what, next) => {
    const client = new PageClient(t.app);
    await client.get('/backoffice/sign-in');
    const response = await client.post('/backoffice/sign-in', {
      email: a.tenant.email,
      password: tenantPassword,
      next,
    });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/backoffice/dashboard');
  });

  it('a form sent without its token, or with a token of another browser, is refused with 403', async () => {
    const client = new PageClient(t.app);
    await client.get('/backoffice/sign-in');
    const without = await client.post('/backoffice/sign-in', {
      email: a.tenant.email,
      password: tenantPassword,
      _csrf: '',
    });
    expect(without.statusCode).toBe(403);
    expect(without.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(textOf(without.body)).toContain('This form has expired');

    const other = new PageClient(t.app);
    const otherPage = await other.get('/backoffice/sign-in');
    const foreign = await client.post('/backoffice/sign-in', {
      email: a.tenant.email,
      password: tenantPassword,
      _csrf: formToken(otherPage.body) ?? '',
    });
    expect(foreign.statusCode).toBe(403);
  });

  it('a form a browser says came from another site is refused with 403, even with its token', async () => {
    const client = new PageClient(t.app);
    await client.get('/backoffice/sign-in');
    const response = await client.post(
      '/backoffice/sign-in',
      { email: a.tenant.email, password: tenantPassword },
      { 'sec-fetch-site': 'cross-site' },
    );
    expect(response.statusCode).toBe(403);
    expect(textOf(response.body)).toContain('sent from another site');
  });

  it('signing out ends the session in the store: the old cookie no longer opens a page', async () => {
    const client = await signedIn(t.app, a.tenant.email);
    const token = client.cookies.get('__Host-backoffice_session') ?? '';
    await client.get('/backoffice/dashboard');
    const out = await client.post('/backoffice/sign-out', {});
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toBe('/backoffice/sign-in?notice=signed-out');
    const row = await t.db
      .selectFrom('backoffice_sessions')
      .selectAll()
      .where('id_hash', '=', sha256Hex(token))
      .executeTakeFirstOrThrow();
    expect(row.revoked_at).not.toBeNull();
    const replay = await t.app.inject({
      method: 'GET',
      url: '/backoffice/dashboard',
      headers: { cookie: `__Host-backoffice_session=${token}` },
    });
    expect(replay.statusCode).toBe(303);
    expect(replay.headers.location).toMatch(/^\/backoffice\/sign-in/);
  });

  it('a session idle for longer than the idle time, or past its end, no longer opens a page', async () => {
    for (const change of [
      { last_seen_at: new Date(Date.now() - 31 * 60_000).toISOString() },
      { expires_at: new Date(Date.now() - 1000).toISOString() },
    ]) {
      const client = await signedIn(t.app, a.tenant.email);
      const token = client.cookies.get('__Host-backoffice_session') ?? '';
      expect((await client.get('/backoffice/dashboard')).statusCode).toBe(200);
      await t.db
        .updateTable('backoffice_sessions')
        .set(change)
        .where('id_hash', '=', sha256Hex(token))
        .execute();
      expect((await client.get('/backoffice/dashboard')).statusCode).toBe(303);
    }
  });

  it("the operator signs in with OPERATOR_EMAIL and OPERATOR_PASSWORD and sees the tenants, not a tenant's pages", async () => {
    const client = await signedIn(t.app, operator.email, operator.password);
    const tenants = await client.get('/backoffice/operator/tenants');
    expect(tenants.statusCode).toBe(200);
    expect(textOf(tenants.body)).toContain(a.tenant.alias);
    const tenantPage = await client.get('/backoffice/templates');
    expect(tenantPage.statusCode).toBe(403);
    expect(tenantPage.headers['content-type']).toBe('text/html; charset=utf-8');
  });

  it("a tenant's user gets 403 on the operator's pages", async () => {
    const client = await signedIn(t.app, a.tenant.email);
    const response = await client.get('/backoffice/operator/tenants');
    expect(response.statusCode).toBe(403);
    // The refusal, inside the tenant's own navigation: nothing of the operator's page.
    expect(textOf(response.body)).toContain('This page is for the operator.');
    expect(response.body).not.toContain('<table');
    expect(response.body).not.toContain('href="/backoffice/operator/');
  });

  it('when the operator disables a tenant, its users are signed out, its keys refused within a second; enabled, they can sign in again', async () => {
    const c = await seedTenant(t.db);
    const user = await signedIn(t.app, c.tenant.email);
    const op = await signedIn(t.app, operator.email, operator.password);
    const latest = () =>
      t.app.inject({
        method: 'GET',
        url: '/api/v1/consent-templates/x/latest',
        headers: c.headers,
      });
    expect((await latest()).statusCode).toBe(404);
    const confirm = await op.get(`/backoffice/operator/tenants/${c.tenant.id}/disable`);
    expect(textOf(confirm.body)).toContain(`Disable tenant ${c.tenant.alias}?`);
    const disabled = await op.post(`/backoffice/operator/tenants/${c.tenant.id}/disable`, {});
    expect(disabled.statusCode).toBe(303);

    expect((await user.get('/backoffice/dashboard')).statusCode).toBe(303);
    expect((await new PageClient(t.app).signIn(c.tenant.email, tenantPassword)).statusCode).toBe(
      401,
    );
    // Keys are checked through a cache trusted for under a second.
    const api = await withinPublishBound(
      () => latest(),
      (response) => response.statusCode === 401,
    );
    expect(api.statusCode).toBe(401);

    await op.get('/backoffice/operator/tenants');
    expect(
      (await op.post(`/backoffice/operator/tenants/${c.tenant.id}/enable`, {})).statusCode,
    ).toBe(303);
    expect((await new PageClient(t.app).signIn(c.tenant.email, tenantPassword)).statusCode).toBe(
      303,
    );
    const actions = await t.db
      .selectFrom('audit_log')
      .select(['action', 'actor', 'actor_kind'])
      .where('tenant_id', '=', c.tenant.id)
      .where('actor_kind', '=', 'operator')
      .orderBy('created_at')
      .execute();
    expect(actions.map((row) => row.action)).toEqual(['tenant.disabled', 'tenant.enabled']);
    expect(actions[0]).toMatchObject({ actor: operator.email });
  });

  it('changing the password needs the current one, signs out the other browsers, and the new one works', async () => {
    const c = await seedTenant(t.db);
    const here = await signedIn(t.app, c.tenant.email);
    const elsewhere = await signedIn(t.app, c.tenant.email);
    await here.get('/backoffice/account/password');
    const wrong = await here.post('/backoffice/account/password', {
      current_password: 'not the password',
      new_password: 'a brand new password',
      confirm_password: 'a brand new password',
    });
    expect(wrong.statusCode).toBe(400);
    expect(textOf(wrong.body)).toContain('This is not the current password.');
    const mismatch = await here.post('/backoffice/account/password', {
      current_password: tenantPassword,
      new_password: 'a brand new password',
      confirm_password: 'another new password',
    });
    expect(mismatch.statusCode).toBe(400);
    expect(textOf(mismatch.body)).toContain('The two new passwords are not the same.');
    const changed = await here.post('/backoffice/account/password', {
      current_password: tenantPassword,
      new_password: 'a brand new password',
      confirm_password: 'a brand new password',
    });
    expect(changed.statusCode).toBe(200);
    expect((await here.get('/backoffice/dashboard')).statusCode).toBe(200);
    expect((await elsewhere.get('/backoffice/dashboard')).statusCode).toBe(303);
    expect((await new PageClient(t.app).signIn(c.tenant.email, tenantPassword)).statusCode).toBe(
      401,
    );
    expect(
      (await new PageClient(t.app).signIn(c.tenant.email, 'a brand new password')).statusCode,
    ).toBe(303);
  });
});
