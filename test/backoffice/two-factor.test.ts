import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../../src/accounts/users.js';
import { hashPassword } from '../../src/tenants/passwords.js';
import type { TestApp } from '../helpers/app.js';
import { appCode } from '../helpers/authenticator.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { storeAgnostic } from '../helpers/stores.js';
import { testPasswordHashCost } from '../helpers/time.js';
import {
  operator,
  PageClient,
  signedIn,
  startBackofficeApp,
  tenantPassword,
  textOf,
} from './support.js';
import { userIdOf } from './team-support.js';

/** A six-digit code that is surely not the app's now, nor one step either side. */
function wrongCode(secret: string): string {
  const near = new Set([-1, 0, 1].map((step) => appCode(secret, step)));
  for (let n = 0; ; n += 1) {
    const candidate = String(n).padStart(6, '0');
    if (!near.has(candidate)) return candidate;
  }
}

describe.each(storeAgnostic)('two-factor sign-in, on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let secret = '';
  let recoveryCodes: string[] = [];

  beforeAll(async () => {
    // Wrong codes count as failed sign-ins; the throttle is tested elsewhere.
    t = await startBackofficeApp(store, {
      SIGN_IN_FAILURES_PER_ACCOUNT: '0',
      SIGN_IN_FAILURES_PER_ADDRESS: '0',
    });
    a = await seedTenant(t.db);
  });
  afterAll(() => t?.close());

  const signInWithPassword = async (email: string, password = tenantPassword) => {
    const client = new PageClient(t.app);
    const answer = await client.signIn(email, password);
    return { client, answer };
  };

  it('a user enrols by scanning a QR code and confirming a code; recovery codes are shown once', async () => {
    const admin = await signedIn(t.app, a.tenant.email);
    await admin.get('/backoffice/account/two-factor');
    const setup = await admin.post('/backoffice/account/two-factor/setup', {});
    expect(setup.statusCode).toBe(200);
    expect(setup.body).toMatch(/<svg role="img" aria-label="QR code" [^>]*viewBox="0 0 \d+ \d+"/);
    secret = (/id="totp-secret">([A-Z2-7 ]+)<\/output>/.exec(setup.body)?.[1] ?? '').replace(
      / /g,
      '',
    );
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);

    const wrong = await admin.post('/backoffice/account/two-factor/confirm', {
      code: wrongCode(secret),
    });
    expect(wrong.statusCode).toBe(400);
    expect(textOf(wrong.body)).toContain('This code is not the one your app shows now.');

    const confirmed = await admin.post('/backoffice/account/two-factor/confirm', {
      code: appCode(secret),
    });
    expect(confirmed.statusCode).toBe(200);
    recoveryCodes = [...confirmed.body.matchAll(/<li>([a-z2-9]{5}-[a-z2-9]{5})<\/li>/g)].map(
      (m) => m[1] ?? '',
    );
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);

    // The store keeps the secret sealed, never as the app's key.
    const row = await t.db
      .selectFrom('users')
      .select(['totp_secret', 'two_factor_since'])
      .where('email', '=', a.tenant.email)
      .executeTakeFirstOrThrow();
    expect(row.totp_secret).not.toContain(secret);
    expect(row.two_factor_since).not.toBeNull();
    // Only hashes of the recovery codes are kept.
    const codes = await t.db.selectFrom('recovery_codes').select('code_hash').execute();
    expect(codes.map((c) => c.code_hash)).not.toContain(recoveryCodes[0]);
  });

  it('then a right password alone opens no session: the code page asks for the second factor', async () => {
    const { client, answer } = await signInWithPassword(a.tenant.email);
    expect(answer.statusCode).toBe(303);
    expect(answer.headers.location).toBe('/backoffice/sign-in/code');
    expect((await client.get('/backoffice/templates')).headers.location).toMatch(
      /^\/backoffice\/sign-in/,
    );
    const page = await client.get('/backoffice/sign-in/code');
    expect(textOf(page.body)).toContain(`Your password for ${a.tenant.email} was right.`);

    const wrong = await client.post('/backoffice/sign-in/code', { code: wrongCode(secret) });
    expect(wrong.statusCode).toBe(401);
    expect(textOf(wrong.body)).toContain('This code is not right. 4 attempts left.');

    // The enrolment used the current step: the app's next code is the one that works now.
    const code = appCode(secret, 1);
    const right = await client.post('/backoffice/sign-in/code', { code });
    expect(right.statusCode).toBe(303);
    expect(right.headers.location).toBe('/backoffice/dashboard');
    expect((await client.get('/backoffice/templates')).statusCode).toBe(200);

    // The same code a second time is refused, and said to be used: each code works once.
    const again = await signInWithPassword(a.tenant.email);
    await again.client.get('/backoffice/sign-in/code');
    const reused = await again.client.post('/backoffice/sign-in/code', { code });
    expect(reused.statusCode).toBe(401);
    expect(textOf(reused.body)).toContain(
      'This code was already used: wait for the next one in your app. 4 attempts left.',
    );
    expect(textOf(reused.body)).not.toContain('not right');
  });

  it('a recovery code signs in once', async () => {
    const code = recoveryCodes[0] ?? '';
    const first = await signInWithPassword(a.tenant.email);
    await first.client.get('/backoffice/sign-in/code');
    const used = await first.client.post('/backoffice/sign-in/code', { code: code.toUpperCase() });
    expect(used.statusCode).toBe(303);
    const second = await signInWithPassword(a.tenant.email);
    await second.client.get('/backoffice/sign-in/code');
    expect((await second.client.post('/backoffice/sign-in/code', { code })).statusCode).toBe(401);
    const audit = await t.db
      .selectFrom('audit_log')
      .select('details')
      .where('action', '=', 'sign_in')
      .where('actor', '=', a.tenant.email)
      .execute();
    expect(audit.map((e) => e.details)).toContain('{"second_factor":"recovery_code"}');
  });

  it('five wrong codes end the challenge: the password must be typed again', async () => {
    const { client } = await signInWithPassword(a.tenant.email);
    await client.get('/backoffice/sign-in/code');
    const bad = wrongCode(secret);
    for (let i = 0; i < 4; i += 1) {
      expect((await client.post('/backoffice/sign-in/code', { code: bad })).statusCode).toBe(401);
    }
    const last = await client.post('/backoffice/sign-in/code', { code: bad });
    expect(last.statusCode).toBe(303);
    expect(last.headers.location).toBe('/backoffice/sign-in?notice=code-expired');
    const after = await client.post('/backoffice/sign-in/code', { code: appCode(secret, 1) });
    expect(after.headers.location).toBe('/backoffice/sign-in?notice=code-expired');
  });

  it('a tenant that requires two-factor sign-in sends a user without it to set it up first', async () => {
    const hash = await hashPassword(tenantPassword, testPasswordHashCost);
    await t.db.transaction().execute((trx) =>
      addUser(trx, a.tenant.id, {
        email: `ed-${a.tenant.alias}@example.test`,
        name: 'Ed',
        roles: ['editor'],
        passwordHash: hash,
      }),
    );
    await t.db
      .updateTable('tenants')
      .set({ two_factor_required: 1 })
      .where('id', '=', a.tenant.id)
      .execute();
    const ed = await signedIn(t.app, `ed-${a.tenant.alias}@example.test`);
    const templates = await ed.get('/backoffice/templates');
    expect(templates.statusCode).toBe(303);
    expect(templates.headers.location).toBe('/backoffice/account/two-factor');
    const page = await ed.get('/backoffice/account/two-factor');
    expect(textOf(page.body)).toContain(
      'Your team requires two-factor sign-in: set it up to go on.',
    );
    expect((await ed.post('/backoffice/templates', { code: 'x', name: 'x' })).statusCode).toBe(403);
    await t.db
      .updateTable('tenants')
      .set({ two_factor_required: 0 })
      .where('id', '=', a.tenant.id)
      .execute();
  });

  it("an admin resets a user's lost second factor; the operator can for a tenant's admin", async () => {
    // The operator resets the admin's (the tenant's only admin: nobody else could).
    const op = new PageClient(t.app);
    await op.signIn(operator.email, operator.password);
    const adminId = await userIdOf(t.db, a.tenant.email);
    const page = await op.get(`/backoffice/operator/tenants/${a.tenant.id}`);
    expect(textOf(page.body)).toContain(a.tenant.email);
    const reset = await op.post(
      `/backoffice/operator/tenants/${a.tenant.id}/users/${adminId}/two-factor-reset`,
      {},
    );
    expect(reset.statusCode).toBe(303);
    const { answer } = await signInWithPassword(a.tenant.email);
    expect(answer.headers.location).toBe('/backoffice/dashboard');
    const entries = await t.db
      .selectFrom('audit_log')
      .select(['actor_kind', 'actor', 'action', 'tenant_id'])
      .where('action', '=', 'user.two_factor_reset')
      .execute();
    expect(entries).toEqual([
      {
        actor_kind: 'operator',
        actor: operator.email,
        action: 'user.two_factor_reset',
        tenant_id: a.tenant.id,
      },
    ]);
    // Not for a user who is no admin: that is the tenant's own admins' to do.
    const edId = await userIdOf(t.db, `ed-${a.tenant.alias}@example.test`);
    await op.get(`/backoffice/operator/tenants/${a.tenant.id}`);
    expect(
      (await op.post(`/backoffice/operator/tenants/${a.tenant.id}/users/${edId}/link`, {}))
        .statusCode,
    ).toBe(409);
  });

  it('the operator can send a locked-out admin a password link', async () => {
    const op = new PageClient(t.app);
    await op.signIn(operator.email, operator.password);
    const adminId = await userIdOf(t.db, a.tenant.email);
    await op.get(`/backoffice/operator/tenants/${a.tenant.id}`);
    const issued = await op.post(
      `/backoffice/operator/tenants/${a.tenant.id}/users/${adminId}/link`,
      {},
    );
    expect(issued.statusCode).toBe(200);
    const link = /\/backoffice\/password\?token=[A-Za-z0-9_-]{43}/.exec(issued.body)?.[0] ?? '';
    expect(link).not.toBe('');
    const visitor = new PageClient(t.app);
    await visitor.get(link);
    const next = 'lighthouse orchard velvet thunder';
    await visitor.post('/backoffice/password', {
      token: link.split('token=')[1] ?? '',
      new_password: next,
      confirm_password: next,
    });
    expect((await signInWithPassword(a.tenant.email, next)).answer.statusCode).toBe(303);
  });

  it("an admin resets a user's second factor from the user's page: their sessions end, and the password alone signs in", async () => {
    const edEmail = `ed-${a.tenant.alias}@example.test`;
    const ed = await signedIn(t.app, edEmail);
    await ed.get('/backoffice/account/two-factor');
    const setup = await ed.post('/backoffice/account/two-factor/setup', {});
    const edSecret = (
      /id="totp-secret">([A-Z2-7 ]+)<\/output>/.exec(setup.body)?.[1] ?? ''
    ).replace(/ /g, '');
    expect(
      (await ed.post('/backoffice/account/two-factor/confirm', { code: appCode(edSecret) }))
        .statusCode,
    ).toBe(200);
    expect((await signInWithPassword(edEmail)).answer.headers.location).toBe(
      '/backoffice/sign-in/code',
    );

    const admin = await signedIn(t.app, a.tenant.email, 'lighthouse orchard velvet thunder');
    const edId = await userIdOf(t.db, edEmail);
    const page = await admin.get(`/backoffice/users/${edId}`);
    expect(textOf(page.body)).toContain('Two-factor sign-in on');
    const reset = await admin.post(`/backoffice/users/${edId}/two-factor-reset`, {});
    expect(reset.statusCode).toBe(303);
    expect((await ed.get('/backoffice/templates')).statusCode).toBe(303);
    expect((await signInWithPassword(edEmail)).answer.headers.location).toBe(
      '/backoffice/dashboard',
    );
    const entry = await t.db
      .selectFrom('audit_log')
      .select(['actor', 'actor_kind'])
      .where('action', '=', 'user.two_factor_reset')
      .where('target', '=', edEmail)
      .executeTakeFirstOrThrow();
    expect(entry).toEqual({ actor: a.tenant.email, actor_kind: 'tenant' });
  });
});
