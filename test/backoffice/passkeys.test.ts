/**
 * Passkeys (docs/team.md, "Passkeys"), on both stores, through the real HTTP stack with an
 * authenticator in software that builds WebAuthn's answers byte by byte
 * (`test/helpers/passkey-authenticator.ts`): registering several, signing in with one, naming and
 * removing them; every wrong answer refused (another origin, another relying party, no user
 * verification, a challenge used twice, a counter going back, a passkey not registered, a disabled
 * user's); what each role requires of signing in; an admin's reset. Chromium's own authenticator
 * is `test/e2e/passkeys-browser.test.ts`'s.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inviteUser, setPasswordFromLink } from '../../src/accounts/index.js';
import type { TestApp } from '../helpers/app.js';
import { SoftPasskeys } from '../helpers/passkey-authenticator.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { testPasswordHashCost } from '../helpers/time.js';
import { PageClient, signedIn, startBackofficeApp, textOf } from './support.js';

/** The test app's `PUBLIC_BASE_URL`: the passkeys' relying party is its host. */
const origin = 'https://consent.test';
const actor = { actorKind: 'operator', actor: 'test', ip: 'local', userAgent: null } as const;

describe.each(stores)('passkeys on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let serial = 0;

  beforeAll(async () => {
    t = await startBackofficeApp(store);
    a = await seedTenant(t.db);
  });
  afterAll(async () => t?.close());

  /** A new active user of the tenant with these roles, and their password. */
  const newMember = async (roles: string[]) => {
    serial += 1;
    const email = `member${serial}@${a.tenant.alias}.example`;
    const password = 'the member password';
    const invited = await t.db.transaction().execute((trx) =>
      inviteUser(trx, { ...actor, tenantId: a.tenant.id }, a.tenant.id, {
        email,
        name: `Member ${serial}`,
        roles,
      }),
    );
    await t.db.transaction().execute((trx) =>
      setPasswordFromLink(trx, invited.token, password, testPasswordHashCost, {
        ip: 'local',
        userAgent: null,
      }),
    );
    return { email, password, id: invited.user.id };
  };

  const audits = (action: string) =>
    t.db
      .selectFrom('audit_log')
      .selectAll()
      .where('tenant_id', '=', a.tenant.id)
      .where('action', '=', action)
      .orderBy('id')
      .execute();

  /** Registers a passkey from the signed-in client's passkeys page; answers the POST's answer. */
  const register = async (
    client: PageClient,
    device: SoftPasskeys,
    name: string,
    twist: Parameters<SoftPasskeys['register']>[1] = {},
  ) => {
    await client.get('/backoffice/account/passkeys');
    const asked = await client.post('/backoffice/account/passkeys/options', {});
    expect(asked.statusCode).toBe(200);
    const options = asked.json();
    const answer = device.register(options, twist);
    return client.post('/backoffice/account/passkeys', {
      name,
      credential: JSON.stringify(answer),
    });
  };

  /** Signs in with a passkey from the sign-in page of a new browser; answers the client and the POST's answer. */
  const signInWith = async (
    device: SoftPasskeys,
    twist: Parameters<SoftPasskeys['authenticate']>[1] = {},
  ) => {
    const client = new PageClient(t.app);
    await client.get('/backoffice/sign-in');
    const asked = await client.post('/backoffice/sign-in/passkey/options', {});
    expect(asked.statusCode).toBe(200);
    const options = asked.json();
    const answer = device.authenticate(options, twist);
    const response = await client.post('/backoffice/sign-in/passkey', {
      credential: JSON.stringify(answer),
      next: '',
    });
    return { client, response, answer, options };
  };

  const stillIn = async (client: PageClient) =>
    (await client.get('/backoffice/dashboard')).statusCode === 200;

  it('registers several passkeys, signs in with either, with no password, and names and removes them', async () => {
    const member = await newMember(['auditor']);
    const client = await signedIn(t.app, member.email, member.password);
    const laptop = new SoftPasskeys(origin);
    const key = new SoftPasskeys(origin);

    const first = await register(client, laptop, 'Work laptop');
    expect(first.statusCode).toBe(303);
    expect(first.headers.location).toBe('/backoffice/account/passkeys?notice=added');
    // The second ceremony tells the browser not to make one on an authenticator that has one.
    await client.get('/backoffice/account/passkeys');
    const second = (await client.post('/backoffice/account/passkeys/options', {})).json();
    expect(second.excludeCredentials.map((c: { id: string }) => c.id)).toEqual([
      laptop.credentials[0]?.id.toString('base64url'),
    ]);
    expect(second.authenticatorSelection).toMatchObject({
      residentKey: 'required',
      userVerification: 'required',
    });
    expect(second.rp).toEqual({ id: 'consent.test', name: 'Consent back-office' });
    const added = await client.post('/backoffice/account/passkeys', {
      name: 'Blue key',
      credential: JSON.stringify(key.register(second)),
    });
    expect(added.statusCode).toBe(303);

    const page = textOf((await client.get('/backoffice/account/passkeys')).body);
    expect(page).toContain('Work laptop');
    expect(page).toContain('Blue key');
    expect(await audits('passkey.added')).toHaveLength(2);

    // Either signs in, alone: a session whose method is the passkey, audited as such.
    for (const device of [laptop, key]) {
      const { client: browser, response } = await signInWith(device);
      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toBe('/backoffice/dashboard');
      expect(await stillIn(browser)).toBe(true);
    }
    const signIns = (await audits('sign_in')).filter((e) => e.actor === member.email);
    expect(signIns.slice(-2).map((e) => JSON.parse(e.details ?? '{}'))).toEqual([
      { method: 'passkey' },
      { method: 'passkey' },
    ]);
    const sessions = textOf((await client.get('/backoffice/account/sessions')).body);
    expect(sessions).toContain('Passkey');

    const listed = (await client.get('/backoffice/account/passkeys')).body;
    const ids = [...listed.matchAll(/account\/passkeys\/([0-9a-f-]{36})\/rename/g)].map(
      (m) => m[1],
    );
    expect(ids).toHaveLength(2);
    const renamed = await client.post(`/backoffice/account/passkeys/${ids[1]}/rename`, {
      name: '  Spare   key ',
    });
    expect(renamed.statusCode).toBe(303);
    expect(textOf((await client.get('/backoffice/account/passkeys')).body)).toContain('Spare key');
    expect((await audits('passkey.renamed')).at(-1)?.target).toBe('Spare key');

    const removed = await client.post(`/backoffice/account/passkeys/${ids[1]}/remove`, {});
    expect(removed.statusCode).toBe(303);
    expect((await audits('passkey.removed')).at(-1)?.target).toBe('Spare key');
    // The removed one no longer signs in; the other still does.
    const gone = await signInWith(key);
    expect(gone.response.statusCode).toBe(401);
    expect(textOf(gone.response.body)).toContain('This passkey is not registered here');
    expect((await signInWith(laptop)).response.statusCode).toBe(303);

    // Someone else's passkey is not theirs to rename or remove.
    const other = await newMember(['auditor']);
    const stranger = await signedIn(t.app, other.email, other.password);
    await stranger.get('/backoffice/account/passkeys');
    expect(
      (await stranger.post(`/backoffice/account/passkeys/${ids[0]}/remove`, {})).statusCode,
    ).toBe(404);
    expect((await signInWith(laptop)).response.statusCode).toBe(303);
  });

  it('refuses an answer made for another origin or relying party, without user verification, twice, or from a cloned authenticator', async () => {
    const member = await newMember(['auditor']);
    const client = await signedIn(t.app, member.email, member.password);
    const device = new SoftPasskeys(origin);

    // Registration: another origin, another relying party, no verification: nothing kept.
    for (const twist of [
      { origin: 'https://consent.test.evil.example' },
      { rpId: 'evil.example' },
      { verified: false },
    ]) {
      const refused = await register(client, new SoftPasskeys(origin), 'Nope', twist);
      expect(refused.statusCode).toBe(400);
    }
    expect(
      await t.db.selectFrom('passkeys').select('id').where('account_id', '=', member.id).execute(),
    ).toHaveLength(0);
    expect((await register(client, device, 'Phone')).statusCode).toBe(303);
    const failuresBefore = (await audits('sign_in.failed')).length;

    // Sign-in: each refused with a page, no session, and an audit entry naming the account.
    for (const twist of [
      { origin: 'https://evil.example' },
      { origin: 'http://consent.test' },
      { rpId: 'evil.example' },
      { verified: false },
    ]) {
      const { client: browser, response } = await signInWith(device, twist);
      expect(response.statusCode).toBe(401);
      expect(textOf(response.body)).toContain('This passkey was not accepted');
      expect(response.headers['set-cookie']?.toString() ?? '').not.toContain('backoffice_session=');
      expect(await stillIn(browser)).toBe(false);
    }
    const failures = (await audits('sign_in.failed')).slice(failuresBefore);
    expect(failures).toHaveLength(4);
    expect(failures.every((e) => e.actor === member.email)).toBe(true);
    expect(JSON.parse(failures[0]?.details ?? '{}')).toMatchObject({
      method: 'passkey',
      reason: 'not_verified',
    });

    // A right answer works once: sent again (its challenge already taken), it is refused.
    const browser = new PageClient(t.app);
    await browser.get('/backoffice/sign-in');
    const options = (await browser.post('/backoffice/sign-in/passkey/options', {})).json();
    const ceremony = browser.cookies.get('backoffice_passkey') ?? '';
    const answer = device.authenticate(options);
    const once = await browser.post('/backoffice/sign-in/passkey', {
      credential: JSON.stringify(answer),
      next: '',
    });
    expect(once.statusCode).toBe(303);
    // Someone who copied the request sends it again, cookie and all.
    const copier = new PageClient(t.app);
    await copier.get('/backoffice/sign-in');
    copier.cookies.set('backoffice_passkey', ceremony);
    const replayed = await copier.post('/backoffice/sign-in/passkey', {
      credential: JSON.stringify(answer),
      next: '',
    });
    expect(replayed.statusCode).toBe(400);
    expect(textOf(replayed.body)).toContain('was not finished in time');
    expect(await stillIn(copier)).toBe(false);
    // An answer to a challenge the service never gave.
    const forged = await signInWith(device, { challenge: 'bm90IHRoZSBjaGFsbGVuZ2U' });
    expect(forged.response.statusCode).toBe(401);

    // A counter that does not move on: a copy of the authenticator.
    const ahead = await signInWith(device, { counter: 50 });
    expect(ahead.response.statusCode).toBe(303);
    const clone = await signInWith(device, { counter: 50 });
    expect(clone.response.statusCode).toBe(401);
  });

  it('a passkey of a disabled user signs no one in', async () => {
    const member = await newMember(['auditor']);
    const client = await signedIn(t.app, member.email, member.password);
    const device = new SoftPasskeys(origin);
    expect((await register(client, device, 'Phone')).statusCode).toBe(303);
    const admin = await signedIn(t.app, a.tenant.email);
    await admin.get(`/backoffice/users/${member.id}`);
    expect((await admin.post(`/backoffice/users/${member.id}/disable`, {})).statusCode).toBe(303);
    const { response } = await signInWith(device);
    expect(response.statusCode).toBe(401);
    const failure = (await audits('sign_in.failed')).at(-1);
    expect(JSON.parse(failure?.details ?? '{}')).toMatchObject({ reason: 'account_disabled' });
  });

  it('a role that requires a passkey: set it up first, then no password alone; the last one stays', async () => {
    const member = await newMember(['auditor']);
    const admin = await signedIn(t.app, a.tenant.email);
    const rules = await admin.get('/backoffice/settings/sign-in');
    expect(rules.statusCode).toBe(200);
    expect(textOf(rules.body)).toContain('Signing in as Auditor requires');
    const saved = await admin.post('/backoffice/settings/sign-in', {
      rule_auditor: 'passkey',
      rule_admin: '',
      rule_editor: 'second_factor',
      rule_reviewer: '',
      rule_approver: '',
      rule_publisher: '',
    });
    expect(saved.statusCode).toBe(303);
    const changes = await audits('role.sign_in_rule_changed');
    expect(changes.map((e) => [e.target, JSON.parse(e.details ?? '{}')])).toEqual(
      expect.arrayContaining([
        ['auditor', { from: null, to: 'passkey' }],
        ['editor', { from: null, to: 'second_factor' }],
      ]),
    );
    expect(
      (await admin.post('/backoffice/settings/sign-in', { rule_auditor: 'fingerprint' }))
        .statusCode,
    ).toBe(400);

    // No passkey yet: the password lets them in, to add one before anything else.
    const client = await signedIn(t.app, member.email, member.password);
    const sent = await client.get('/backoffice/dashboard');
    expect(sent.statusCode).toBe(303);
    expect(sent.headers.location).toBe('/backoffice/account/passkeys');
    expect(textOf((await client.get('/backoffice/account/passkeys')).body)).toContain(
      'Your role signs in with a passkey: add one to go on.',
    );
    const device = new SoftPasskeys(origin);
    expect((await register(client, device, 'Phone')).statusCode).toBe(303);
    expect(await stillIn(client)).toBe(true);

    // From now on the password alone is refused, and said why; the passkey signs in.
    const byPassword = await new PageClient(t.app).signIn(member.email, member.password);
    expect(byPassword.statusCode).toBe(403);
    expect(textOf(byPassword.body)).toContain('Your role signs in with a passkey');
    expect(JSON.parse((await audits('sign_in.refused')).at(-1)?.details ?? '{}')).toEqual({
      reason: 'passkey_required',
    });
    expect((await signInWith(device)).response.statusCode).toBe(303);

    // The last passkey cannot be removed while the role requires one.
    const listed = (await client.get('/backoffice/account/passkeys')).body;
    const id = /account\/passkeys\/([0-9a-f-]{36})\/remove/.exec(listed)?.[1];
    const kept = await client.post(`/backoffice/account/passkeys/${id}/remove`, {});
    expect(kept.statusCode).toBe(409);
    expect(textOf(kept.body)).toContain('add another before you remove this one');

    // An admin resets it (a lost phone): the passkey is gone, their sessions end, audited.
    const userPage = await admin.get(`/backoffice/users/${member.id}`);
    expect(textOf(userPage.body)).toMatch(/Passkeys\s+1/);
    const reset = await admin.post(`/backoffice/users/${member.id}/two-factor-reset`, {});
    expect(reset.statusCode).toBe(303);
    expect(await stillIn(client)).toBe(false);
    expect(JSON.parse((await audits('user.two_factor_reset')).at(-1)?.details ?? '{}')).toEqual({
      user_id: member.id,
      sessions_ended: expect.any(Number),
      passkeys_removed: 1,
    });
    expect((await signInWith(device)).response.statusCode).toBe(401);
  });

  it('a role that requires a second factor takes a passkey or an app, and a passkey alone means no password alone', async () => {
    const member = await newMember(['editor']);
    const admin = await signedIn(t.app, a.tenant.email);
    await admin.get('/backoffice/settings/sign-in');
    await admin.post('/backoffice/settings/sign-in', { rule_editor: 'second_factor' });
    const client = await signedIn(t.app, member.email, member.password);
    const sent = await client.get('/backoffice/dashboard');
    expect(sent.headers.location).toBe('/backoffice/account/two-factor');
    const device = new SoftPasskeys(origin);
    expect((await register(client, device, 'Phone')).statusCode).toBe(303);
    expect(await stillIn(client)).toBe(true);
    expect((await new PageClient(t.app).signIn(member.email, member.password)).statusCode).toBe(
      403,
    );
    expect((await signInWith(device)).response.statusCode).toBe(303);
  });
});
