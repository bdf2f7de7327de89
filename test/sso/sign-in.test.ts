/**
 * Single sign-on to the back-office with OpenID Connect (docs/team.md, "Single sign-on"), against
 * a real OpenID Provider on loopback (`oidc-provider`, test/helpers/oidc-idp.ts) and the service
 * listening on its own port, through plain HTTP as a browser goes: a person of a mapped group
 * signs in with no password here and gets the roles of their groups, on every sign-in; a person
 * whose groups give no role, an unknown one (without adding users), and every answer that fails a
 * check (another audience, a bad signature, another nonce, an expired token, another state, a
 * replayed code, another issuer) are refused with a clear page, nothing made and an audit entry;
 * a provider that is down is a 503 page; a tenant that requires single sign-on refuses passwords
 * but for its break-glass user.
 */
import { exportJWK, SignJWT } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { inviteUser, setPasswordFromLink } from '../../src/accounts/index.js';
import { type SsoSettingsInput, saveSsoSettings } from '../../src/sso/index.js';
import { desktop, launchChromium, watch } from '../backoffice/browser.js';
import { signedIn, startBackofficeApp, textOf } from '../backoffice/support.js';
import type { TestApp } from '../helpers/app.js';
import {
  cookieHeaderOf,
  type IdpUser,
  signInThroughIdp,
  signOutThroughIdp,
  startTestIdp,
  type TestIdp,
} from '../helpers/oidc-idp.js';
import { freePort } from '../helpers/ports.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { budget, testPasswordHashCost } from '../helpers/time.js';

const clientId = 'consent-backoffice';
const clientSecret = 'the client secret of the back-office';
const actor = { actorKind: 'operator', actor: 'test', ip: 'local', userAgent: null } as const;

describe.each(stores)('single sign-on to the back-office on $name', (store) => {
  let t: TestApp;
  let base: string;
  let idp: TestIdp;
  let a: SeededTenant;
  const users: Record<string, IdpUser> = {};
  const person = (key: string, groups: string[], extra: Partial<IdpUser> = {}): IdpUser => {
    users[key] = {
      sub: `sub-${key}`,
      email: `${key}@staff.bank.example`,
      name: `${key[0]?.toUpperCase()}${key.slice(1)} Staff`,
      groups,
      password: `password of ${key}`,
      ...extra,
    };
    return users[key];
  };
  const all = [
    person('mali', ['consent-admins', 'everyone']),
    person('nok', ['consent-support']),
    person('somchai', ['marketing']),
    person('ploy', ['consent-support'], { email_verified: false }),
    person('kanda', ['consent-support']),
    person('arun', ['consent-admins']),
  ];

  async function configure(changes: Partial<SsoSettingsInput> = {}) {
    await t.db.transaction().execute((trx) =>
      saveSsoSettings(
        trx,
        t.vault.accountSecrets,
        { ...actor, tenantId: a.tenant.id },
        a.tenant.id,
        {
          issuer: idp.issuer,
          clientId,
          clientSecret,
          emailClaim: 'email',
          groupsClaim: 'groups',
          groupRoles: [
            { group: 'consent-admins', role: 'admin' },
            { group: 'consent-support', role: 'customer_service' },
          ],
          createUsers: true,
          required: false,
          breakGlassUserId: null,
          ...changes,
        },
      ),
    );
  }

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await startBackofficeApp(store, { PUBLIC_BASE_URL: base }, { port });
    idp = await startTestIdp({
      clients: [
        {
          client_id: clientId,
          client_secret: clientSecret,
          redirect_uris: [`${base}/backoffice/sso/callback`],
          post_logout_redirect_uris: [`${base}/backoffice/sign-in?notice=signed-out`],
        },
      ],
      users: all,
    });
    a = await seedTenant(t.db);
    await configure();
  });
  afterAll(async () => {
    await idp?.stop();
    await t?.close();
  });

  const startUrl = () => `${base}/backoffice/sso/${a.tenant.alias}`;
  const credentials = (key: string) => ({
    login: users[key]?.email ?? '',
    password: users[key]?.password ?? '',
  });
  const sessionCookie = (cookies: Map<string, string>) =>
    [...cookies].find(([name]) => name.endsWith('backoffice_session'))?.[1];
  /** A back-office page with the session the sign-in gave. */
  const page = (path: string, cookies: Map<string, string>) =>
    fetch(`${base}/backoffice${path}`, {
      headers: { cookie: cookieHeaderOf(cookies) },
      redirect: 'manual',
    });
  const userRow = (key: string) =>
    t.db
      .selectFrom('users')
      .selectAll()
      .where('email', '=', users[key]?.email ?? '')
      .executeTakeFirst();
  const rolesOf = async (userId: string) =>
    (
      await t.db.selectFrom('user_roles').select('role_id').where('user_id', '=', userId).execute()
    ).map((r) => r.role_id);
  const audits = (action: string) =>
    t.db
      .selectFrom('audit_log')
      .selectAll()
      .where('tenant_id', '=', a.tenant.id)
      .where('action', '=', action)
      .orderBy('created_at')
      .execute();
  const counts = async () => ({
    users: (await t.db.selectFrom('users').select('id').execute()).length,
    sessions: (await t.db.selectFrom('backoffice_sessions').select('id_hash').execute()).length,
  });

  it('a person of an admin group signs in with no password here: made a user with the Admin role, the session and the audit saying sso', async () => {
    const before = await counts();
    const signed = await signInThroughIdp(startUrl(), credentials('mali'));
    expect(signed.response.status, signed.response.body).toBe(303);
    expect(signed.response.headers.get('location')).toBe('/backoffice/dashboard');
    expect(sessionCookie(signed.serviceCookies)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The pending sign-in's cookie is gone: the callback cannot be used again.
    expect(signed.serviceCookies.get('consent_sso') ?? '').toBe('');
    const settings = await page('/settings', signed.serviceCookies);
    expect(settings.status).toBe(200);
    expect(await settings.text()).toContain('Mali Staff');

    const row = await userRow('mali');
    expect(row).toMatchObject({ status: 'active', password_hash: null, name: 'Mali Staff' });
    expect(await rolesOf(row?.id ?? '')).toEqual(['admin']);
    expect(await counts()).toEqual({ users: before.users + 1, sessions: before.sessions + 1 });
    const session = await t.db
      .selectFrom('backoffice_sessions')
      .select(['sign_in_method', 'email'])
      .where('user_id', '=', row?.id ?? '')
      .executeTakeFirstOrThrow();
    expect(session).toEqual({ sign_in_method: 'sso', email: users.mali?.email });
    const provisioned = (await audits('user.provisioned')).at(-1);
    expect(JSON.parse(provisioned?.details ?? '{}')).toMatchObject({ roles: ['admin'], by: 'sso' });
    const signIn = (await audits('sign_in')).at(-1);
    expect(signIn).toMatchObject({ actor: users.mali?.email });
    expect(JSON.parse(signIn?.details ?? '{}')).toEqual({ method: 'sso' });
  });

  it('the roles follow the groups on every sign-in; groups that give no role are refused, nothing made', async () => {
    const first = await signInThroughIdp(startUrl(), credentials('nok'));
    expect(first.response.status).toBe(303);
    expect((await page('/settings', first.serviceCookies)).status).toBe(403);
    expect((await page('/customers', first.serviceCookies)).status).toBe(200);
    const nok = await userRow('nok');
    expect(await rolesOf(nok?.id ?? '')).toEqual(['customer_service']);

    // The provider moves them to the admins' group: the next sign-in gives them its role.
    (users.nok as IdpUser).groups = ['consent-admins'];
    const second = await signInThroughIdp(startUrl(), credentials('nok'));
    expect((await page('/settings', second.serviceCookies)).status).toBe(200);
    expect(await rolesOf(nok?.id ?? '')).toEqual(['admin']);
    const changed = (await audits('user.changed')).at(-1);
    expect(JSON.parse(changed?.details ?? '{}')).toMatchObject({
      roles: { from: ['customer_service'], to: ['admin'] },
      by: 'sso',
    });

    const before = await counts();
    const refused = await signInThroughIdp(startUrl(), credentials('somchai'));
    expect(refused.response.status).toBe(403);
    expect(refused.response.body).toContain('None of your groups gives you a role here');
    expect(sessionCookie(refused.serviceCookies)).toBeUndefined();
    expect(await userRow('somchai')).toBeUndefined();
    expect(await counts()).toEqual(before);
    expect(JSON.parse((await audits('sso.refused')).at(-1)?.details ?? '{}')).toEqual({
      reason: 'no-role',
    });

    // A provider that says the e-mail is not verified is not trusted with it.
    const unverified = await signInThroughIdp(startUrl(), credentials('ploy'));
    expect(unverified.response.status).toBe(403);
    expect(await userRow('ploy')).toBeUndefined();
  });

  it('without adding users, an unknown person is refused and an invited user takes their invitation by signing in', async () => {
    await configure({ createUsers: false });
    const refused = await signInThroughIdp(startUrl(), credentials('kanda'));
    expect(refused.response.status).toBe(403);
    expect(refused.response.body).toContain('Ask your administrator to invite you');
    expect(await userRow('kanda')).toBeUndefined();

    await t.db.transaction().execute((trx) =>
      inviteUser(trx, { ...actor, tenantId: a.tenant.id }, a.tenant.id, {
        email: users.kanda?.email ?? '',
        name: 'Kanda',
        roles: ['auditor'],
      }),
    );
    const signed = await signInThroughIdp(startUrl(), credentials('kanda'));
    expect(signed.response.status).toBe(303);
    const kanda = await userRow('kanda');
    expect(kanda?.status).toBe('active');
    // Their roles are their groups', not the invitation's.
    expect(await rolesOf(kanda?.id ?? '')).toEqual(['customer_service']);
    await configure();
  });

  describe('an answer that fails a check', () => {
    const realFetch = globalThis.fetch;
    afterEach(() => {
      globalThis.fetch = realFetch;
    });

    /**
     * The provider's token answer changed on its way to the service, as an attacker between them
     * (or a broken provider) would: its ID token's claims changed and signed again with the
     * provider's own key, or its signature spoilt.
     */
    function tamper(
      change: (claims: Record<string, unknown>) => Record<string, unknown> | 'spoil',
    ) {
      globalThis.fetch = async (input, init) => {
        const response = await realFetch(input, init);
        const url = input instanceof Request ? input.url : String(input);
        if (!url.startsWith(`${idp.issuer}/token`)) return response;
        const body = (await response.json()) as { id_token: string };
        const [head, payload, signature] = body.id_token.split('.') as [string, string, string];
        const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<
          string,
          unknown
        >;
        const changed = change(claims);
        body.id_token =
          changed === 'spoil'
            ? `${head}.${payload}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`
            : await new SignJWT(changed)
                .setProtectedHeader({ alg: 'RS256', kid: idp.kid })
                .sign(idp.privateKey);
        return new Response(JSON.stringify(body), {
          status: response.status,
          headers: { 'content-type': 'application/json' },
        });
      };
    }

    it.each([
      ['another audience', (c: Record<string, unknown>) => ({ ...c, aud: 'another-client' })],
      [
        'another issuer in the token',
        (c: Record<string, unknown>) => ({ ...c, iss: 'https://idp.evil.example' }),
      ],
      ['another nonce', (c: Record<string, unknown>) => ({ ...c, nonce: 'not-the-nonce' })],
      [
        'an expired token',
        (c: Record<string, unknown>) => ({ ...c, iat: 1_700_000_000, exp: 1_700_000_600 }),
      ],
      ['a spoilt signature', () => 'spoil' as const],
    ])('%s: refused with a clear page, nothing made, audited', async (_what, change) => {
      // The key is the provider's: a token signed with it is genuine but for the claim changed.
      expect((await exportJWK(idp.privateKey)).kty).toBe('RSA');
      const before = await counts();
      tamper(change);
      const refused = await signInThroughIdp(startUrl(), credentials('arun'));
      globalThis.fetch = realFetch;
      expect(refused.response.status).toBe(400);
      expect(refused.response.body).toContain('could not be trusted');
      expect(sessionCookie(refused.serviceCookies)).toBeUndefined();
      expect(await userRow('arun')).toBeUndefined();
      expect(await counts()).toEqual(before);
      const entry = (await audits('sso.refused')).at(-1);
      expect(JSON.parse(entry?.details ?? '{}')).toMatchObject({ reason: 'invalid-response' });
    });
  });

  it('a callback with another state, or replayed, and a provider that is down or of another issuer each get a page, never a 500', async () => {
    const at = await signInThroughIdp(startUrl(), credentials('mali'), { stopAtCallback: true });
    const pendingCookie = cookieHeaderOf(at.serviceCookies);
    const callback = (url: string, cookie = pendingCookie) =>
      fetch(url, { headers: { cookie }, redirect: 'manual' });
    const forged = new URL(at.callbackUrl);
    forged.searchParams.set('state', 'another-state');
    const wrongState = await callback(forged.href);
    expect(wrongState.status).toBe(400);
    expect(await wrongState.text()).toContain('could not be trusted');

    const good = await callback(at.callbackUrl);
    expect(good.status).toBe(303);
    // The same code again, with the same pending cookie: the provider has spent it.
    const replayed = await callback(at.callbackUrl);
    expect(replayed.status).toBe(400);
    // And without the pending cookie the browser no longer has: nothing pending.
    const orphan = await callback(at.callbackUrl, '');
    expect(orphan.status).toBe(400);
    expect(await orphan.text()).toContain('took too long or was started elsewhere');

    // Settings naming an issuer the provider does not say it is.
    await configure({ issuer: idp.issuer.replace('127.0.0.1', 'localhost') });
    const otherIssuer = await fetch(startUrl(), { redirect: 'manual' });
    expect(otherIssuer.status).toBe(400);
    expect(JSON.parse((await audits('sso.refused')).at(-1)?.details ?? '{}')).toMatchObject({
      reason: 'invalid-response',
    });

    // The provider down: the start cannot fetch its discovery document.
    const port = new URL(idp.issuer).port;
    await configure({ issuer: `http://127.0.0.1:${await freePort()}` });
    const down = await fetch(startUrl(), { redirect: 'manual' });
    expect(down.status).toBe(503);
    expect(await down.text()).toContain('did not answer');
    expect(port).not.toBe('');
    await configure();
  });

  it('a tenant that requires single sign-on refuses passwords but for its break-glass user, who has a second factor', async () => {
    // The break-glass user: invited, with a password and a second factor.
    const email = `break-glass@${a.tenant.alias}.example`;
    const password = 'the break-glass password';
    const invited = await t.db.transaction().execute((trx) =>
      inviteUser(trx, { ...actor, tenantId: a.tenant.id }, a.tenant.id, {
        email,
        name: 'Break Glass',
        roles: ['admin'],
      }),
    );
    await t.db.transaction().execute((trx) =>
      setPasswordFromLink(trx, invited.token, password, testPasswordHashCost, {
        ip: 'local',
        userAgent: null,
      }),
    );
    await expect(
      configure({ required: true, breakGlassUserId: invited.user.id }),
    ).rejects.toThrow();
    await t.db
      .updateTable('users')
      .set({
        totp_secret: t.vault.accountSecrets.seal(invited.user.id, 'JBSWY3DPEHPK3PXPJBSWY3DP'),
        two_factor_since: new Date().toISOString(),
      })
      .where('id', '=', invited.user.id)
      .execute();
    await configure({ required: true, breakGlassUserId: invited.user.id });

    const signInWith = async (who: string, secret: string) => {
      const form = await fetch(`${base}/backoffice/sign-in`);
      const cookies = form.headers
        .getSetCookie()
        .map((c) => c.split(';')[0])
        .join('; ');
      const token = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
      return fetch(`${base}/backoffice/sign-in`, {
        method: 'POST',
        headers: { cookie: cookies, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: token, email: who, password: secret, next: '' }),
        redirect: 'manual',
      });
    };
    const admin = await signInWith(a.tenant.email, 'a long enough password');
    expect(admin.status).toBe(403);
    expect(await admin.text()).toContain('Your organisation signs you in with single sign-on');
    expect(JSON.parse((await audits('sign_in.refused')).at(-1)?.details ?? '{}')).toEqual({
      reason: 'sso_required',
    });
    const breakGlass = await signInWith(email, password);
    expect(breakGlass.status).toBe(303);
    expect(breakGlass.headers.get('location')).toBe('/backoffice/sign-in/code');
    // Single sign-on itself still lets people in.
    expect((await signInThroughIdp(startUrl(), credentials('mali'))).response.status).toBe(303);
    await configure();
  });

  it('the settings page shows what to register at the provider, names a bad field, keeps the secret unseen, and audits the change', async () => {
    const admin = await signedIn(t.app, a.tenant.email);
    const shown = await admin.get('/backoffice/settings/sso');
    expect(shown.statusCode).toBe(200);
    expect(shown.body).toContain(`${base}/backoffice/sso/callback`);
    expect(shown.body).toContain(`${base}/backoffice/sso/${a.tenant.alias}`);
    expect(shown.body).not.toContain(clientSecret);
    const fields = {
      issuer: idp.issuer,
      client_id: clientId,
      client_secret: '',
      email_claim: 'email',
      groups_claim: 'groups',
      group_roles: 'consent-admins = Admin\nconsent-support = Customer service',
      create_users: 'true',
      break_glass_user_id: '',
    };
    const insecure = await admin.post('/backoffice/settings/sso', {
      ...fields,
      issuer: 'http://idp.bank.example/realms/staff',
    });
    expect(insecure.statusCode).toBe(400);
    expect(textOf(insecure.body)).toContain('must be an https URL');
    const unknownRole = await admin.post('/backoffice/settings/sso', {
      ...fields,
      group_roles: 'consent-admins = Superuser',
    });
    expect(unknownRole.statusCode).toBe(400);
    expect(textOf(unknownRole.body)).toContain('“consent-admins = Superuser” is not');
    const saved = await admin.post('/backoffice/settings/sso', fields);
    expect(saved.statusCode, textOf(saved.body)).toBe(303);
    // The secret saved before is kept, and still signs the service in at the provider.
    expect((await signInThroughIdp(startUrl(), credentials('mali'))).response.status).toBe(303);
    const changed = (await audits('sso.changed')).at(-1);
    expect(changed?.actor).toBe(a.tenant.email);
    expect(changed?.details).not.toContain(clientSecret);
    expect(JSON.parse(changed?.details ?? '{}')).toMatchObject({
      issuer: idp.issuer,
      groupRoles: [
        { group: 'consent-admins', role: 'admin' },
        { group: 'consent-support', role: 'customer_service' },
      ],
      client_secret: 'kept',
    });
  });

  it('in Chromium: from the sign-in page through the provider’s own login page to the back-office, with the roles of the groups; a misconfigured provider is a clear page', async () => {
    const browser = await launchChromium();
    try {
      const context = await browser.newContext({ viewport: desktop });
      const tab = await context.newPage();
      tab.setDefaultTimeout(budget(10_000));
      const console = watch(tab);
      await tab.goto(`${base}/backoffice/sign-in`);
      await tab.getByRole('link', { name: 'Sign in with single sign-on' }).click();
      await tab.getByLabel('Organisation').fill(a.tenant.alias);
      await tab.getByRole('button', { name: 'Continue' }).click();
      await tab.getByRole('button', { name: `Continue to ${a.tenant.alias}’s sign-in` }).click();
      // The provider's page: no password of the back-office is ever typed.
      await tab.waitForURL((url) => url.origin === idp.issuer);
      await tab.locator('input[name="login"]').fill(users.arun?.email ?? '');
      await tab.locator('input[name="password"]').fill(users.arun?.password ?? '');
      await tab.getByRole('button', { name: 'Sign in' }).click();
      await tab.waitForURL(`${base}/backoffice/dashboard`);
      // Arun's group gives the Admin role: the administration is in their navigation.
      const nav = tab.getByRole('navigation', { name: 'Main' });
      expect(await nav.locator('a[href="/backoffice/settings"]').count()).toBe(1);
      const arun = await userRow('arun');
      expect(await rolesOf(arun?.id ?? '')).toEqual(['admin']);
      expect(console.problems).toEqual([]);

      // The client's secret changed at the provider and not here: refused, with a page that says so.
      await configure({ clientSecret: 'a secret the provider does not know' });
      const other = await browser.newContext({ viewport: desktop });
      const refused = await other.newPage();
      refused.setDefaultTimeout(budget(10_000));
      await refused.goto(startUrl());
      await refused.locator('input[name="login"]').fill(users.arun?.email ?? '');
      await refused.locator('input[name="password"]').fill(users.arun?.password ?? '');
      await refused.getByRole('button', { name: 'Sign in' }).click();
      await refused.getByRole('heading', { name: 'Single sign-on did not sign you in' }).waitFor();
      expect(refused.url()).toContain(`${base}/backoffice/sso/callback`);
      expect(await refused.getByRole('alert').textContent()).toContain('could not be trusted');
    } finally {
      await browser.close();
      await configure();
    }
  });

  it('signing out of a single sign-on session offers to sign out at the provider, which sends the browser back', async () => {
    const signed = await signInThroughIdp(startUrl(), credentials('mali'));
    const cookie = cookieHeaderOf(signed.serviceCookies);
    const dashboard = await fetch(`${base}/backoffice/dashboard`, { headers: { cookie } });
    const token = /name="_csrf" value="([^"]+)"/.exec(await dashboard.text())?.[1] ?? '';
    const csrf = dashboard.headers.getSetCookie().map((c) => c.split(';')[0]);
    const out = await fetch(`${base}/backoffice/sign-out`, {
      method: 'POST',
      headers: {
        cookie: [cookie, ...csrf].join('; '),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ _csrf: token }),
      redirect: 'manual',
    });
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe(
      `/backoffice/sign-in?notice=signed-out&sso=${a.tenant.alias}`,
    );
    const after = await fetch(`${base}${out.headers.get('location')}`);
    expect(await after.text()).toContain(`href="/backoffice/sso/${a.tenant.alias}/sign-out"`);
    const toProvider = await fetch(startUrl().replace(/$/, '/sign-out'), { redirect: 'manual' });
    expect(toProvider.status).toBe(302);
    const endSession = new URL(toProvider.headers.get('location') ?? '');
    expect(endSession.origin).toBe(idp.issuer);
    expect(endSession.searchParams.get('client_id')).toBe(clientId);
    expect(endSession.searchParams.get('post_logout_redirect_uri')).toBe(
      `${base}/backoffice/sign-in?notice=signed-out`,
    );
    // The provider takes it, ends its own session and sends the browser back.
    const back = await signOutThroughIdp(endSession.href, { jar: signed.jar });
    expect(back.redirectedTo).toBe(`${base}/backoffice/sign-in?notice=signed-out`);
    // The session is over here whatever the provider does.
    expect((await page('/dashboard', signed.serviceCookies)).status).toBe(303);
    // A password's session signs out with nothing more to offer.
    const admin = await signedIn(t.app, a.tenant.email);
    await admin.get('/backoffice/dashboard');
    const plain = await admin.post('/backoffice/sign-out', {});
    expect(plain.headers.location).toBe('/backoffice/sign-in?notice=signed-out');
  });
});
