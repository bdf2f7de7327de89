import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { type SmtpListener, startSmtpServer } from '../helpers/smtp.js';
import { acceptAuditEntries, refuseAuditEntries } from '../helpers/store-faults.js';
import { stores } from '../helpers/stores.js';
import { operator, PageClient, signedIn, startBackofficeApp, textOf } from './support.js';
import { takeLink } from './team-support.js';

const strong = 'granite meadow pilot saffron';

describe.each(stores)('operators and forgotten passwords, with SMTP, on $name', (store) => {
  let t: TestApp;
  let smtp: SmtpListener;
  let a: SeededTenant;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startBackofficeApp(store, { SMTP_URL: smtp.url });
    a = await seedTenant(t.db);
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  const operatorClient = async () => {
    const client = new PageClient(t.app);
    expect((await client.signIn(operator.email, operator.password)).statusCode).toBe(303);
    return client;
  };

  it('an operator invites another, who sets a password from the e-mail and signs in as an operator', async () => {
    const op = await operatorClient();
    const page = await op.submit(
      '/backoffice/operator/operators',
      '/backoffice/operator/operators',
      {
        name: 'Olga Ops',
        email: 'olga@consent.test',
      },
    );
    expect(page.statusCode).toBe(200);
    expect(textOf(page.body)).toContain('The invitation was e-mailed to olga@consent.test');
    const mail = await smtp.next((m) => m.to.includes('olga@consent.test'));
    expect(mail.subject).toBe('Your invitation to the consent back-office');
    expect((await new PageClient(t.app).signIn('olga@consent.test', strong)).statusCode).toBe(401);
    expect(await takeLink(t.app, mail.text, strong)).toBe(303);
    const olga = new PageClient(t.app);
    const signIn = await olga.signIn('olga@consent.test', strong);
    expect(signIn.headers.location).toBe('/backoffice/operator/tenants');
    expect((await olga.get('/backoffice/operator/operators')).statusCode).toBe(200);
    expect((await olga.get('/backoffice/templates')).statusCode).toBe(403);
  });

  it("a tenant's first admin gets the invitation by e-mail; the operator's page shows no link", async () => {
    const op = await operatorClient();
    const created = await op.submit(
      '/backoffice/operator/tenants/new',
      '/backoffice/operator/tenants',
      { alias: 'umbrella', name: 'Una Umbrella', email: 'privacy@umbrella.test' },
    );
    expect(created.statusCode).toBe(200);
    expect(textOf(created.body)).toContain('The invitation was e-mailed to privacy@umbrella.test');
    expect(created.body).not.toContain('/backoffice/password?token=');
    const mail = await smtp.next((m) => m.to.includes('privacy@umbrella.test'));
    expect(mail.subject).toBe('Your invitation to the consent back-office of umbrella');
    expect(mail.text).toContain('Hello Una Umbrella,');
    expect(await takeLink(t.app, mail.text, strong)).toBe(303);
    const una = new PageClient(t.app);
    expect((await una.signIn('privacy@umbrella.test', strong)).headers.location).toBe(
      '/backoffice/dashboard',
    );
  });

  it("an operator's e-mail cannot be a user's, nor the other way round", async () => {
    const op = await operatorClient();
    const page = await op.submit(
      '/backoffice/operator/operators',
      '/backoffice/operator/operators',
      {
        name: 'Clash',
        email: a.tenant.email,
      },
    );
    expect(page.statusCode).toBe(400);
    expect(textOf(page.body)).toContain('An account with this e-mail already exists.');
    const admin = await signedIn(t.app, a.tenant.email);
    const user = await admin.submit('/backoffice/users/new', '/backoffice/users', {
      name: 'Olga again',
      email: 'olga@consent.test',
      roles: 'editor',
    });
    expect(user.statusCode).toBe(400);
  });

  it('disabling an operator ends their sessions at once; nobody disables themselves', async () => {
    const olga = new PageClient(t.app);
    await olga.signIn('olga@consent.test', strong);
    const op = await operatorClient();
    const olgaId = (
      await t.db
        .selectFrom('operators')
        .select('id')
        .where('email', '=', 'olga@consent.test')
        .executeTakeFirstOrThrow()
    ).id;
    const selfId = (
      await t.db
        .selectFrom('operators')
        .select('id')
        .where('email', '=', operator.email)
        .executeTakeFirstOrThrow()
    ).id;
    await op.get('/backoffice/operator/operators');
    expect((await op.post(`/backoffice/operator/operators/${olgaId}/disable`, {})).statusCode).toBe(
      303,
    );
    expect((await olga.get('/backoffice/operator/tenants')).statusCode).toBe(303);
    expect((await new PageClient(t.app).signIn('olga@consent.test', strong)).statusCode).toBe(401);
    await op.get('/backoffice/operator/operators');
    const self = await op.post(`/backoffice/operator/operators/${selfId}/disable`, {});
    expect(self.statusCode).toBe(409);
    expect(textOf(self.body)).toContain('An operator cannot disable themselves.');
    const actions = await t.db
      .selectFrom('audit_log')
      .select(['action', 'actor', 'target'])
      .where('action', 'like', 'operator.%')
      .orderBy('created_at')
      .execute();
    expect(actions).toEqual([
      { action: 'operator.invited', actor: operator.email, target: 'olga@consent.test' },
      {
        action: 'operator.invitation_taken',
        actor: 'olga@consent.test',
        target: 'olga@consent.test',
      },
      { action: 'operator.disabled', actor: operator.email, target: 'olga@consent.test' },
    ]);
  });

  it('a user who forgot their password gets a link by e-mail; the page says the same for any e-mail', async () => {
    const visitor = new PageClient(t.app);
    const known = await visitor.submit(
      '/backoffice/forgot-password',
      '/backoffice/forgot-password',
      {
        email: a.tenant.email,
      },
    );
    const unknown = await visitor.submit(
      '/backoffice/forgot-password',
      '/backoffice/forgot-password',
      {
        email: 'nobody@acme.test',
      },
    );
    const said = (body: string) => textOf(body).replace(/name="_csrf" value="[^"]+"/, '');
    expect(known.statusCode).toBe(200);
    expect(said(known.body)).toContain(
      'If an account has this e-mail, a link to set a new password is on its way.',
    );
    expect(said(unknown.body)).toContain(
      'If an account has this e-mail, a link to set a new password is on its way.',
    );
    const mail = await smtp.next(
      (m) => m.to.includes(a.tenant.email) && m.subject === 'Set a new password',
    );
    const next = 'copper willow falcon dune';
    expect(await takeLink(t.app, mail.text, next)).toBe(303);
    expect((await new PageClient(t.app).signIn(a.tenant.email, next)).statusCode).toBe(303);

    // Asked again at once: no new link, so no second e-mail (no mail bombing).
    const links = () =>
      t.db
        .selectFrom('account_tokens')
        .select('token_hash')
        .where('purpose', '=', 'password_reset')
        .execute();
    const before = (await links()).length;
    await visitor.submit('/backoffice/forgot-password', '/backoffice/forgot-password', {
      email: a.tenant.email,
    });
    expect((await links()).length).toBe(before);
    const requested = await t.db
      .selectFrom('audit_log')
      .select(['actor_kind', 'target'])
      .where('action', '=', 'user.password_reset_requested')
      .execute();
    expect(requested).toEqual([{ actor_kind: 'anonymous', target: a.tenant.email }]);
  });
});

describe.each(stores)('registering a tenant without SMTP, on $name', (store) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startBackofficeApp(store);
  });
  afterAll(() => t?.close());

  const tenantRows = (alias: string) =>
    t.db.selectFrom('tenants').select('alias').where('alias', '=', alias).execute();

  it('the operator registers a tenant with its first admin, who is invited: the link is shown once, no password is asked', async () => {
    const op = new PageClient(t.app);
    expect((await op.signIn(operator.email, operator.password)).statusCode).toBe(303);
    const form = await op.get('/backoffice/operator/tenants/new');
    expect(form.body).not.toContain('type="password"');
    expect(textOf(form.body)).not.toContain('sign in here with them');
    const created = await op.post('/backoffice/operator/tenants', {
      alias: 'globex',
      name: 'Grace Globex',
      email: 'privacy@globex.test',
    });
    expect(created.statusCode).toBe(200);
    const text = textOf(created.body);
    expect(text).toContain('Tenant registered.');
    expect(text).toContain('Copy the link now: it is shown only this once.');
    expect(text).toContain('Give it to Grace Globex (privacy@globex.test)');
    expect(await tenantRows('globex')).toEqual([{ alias: 'globex' }]);
    const admin = await t.db
      .selectFrom('users')
      .innerJoin('user_roles', 'user_roles.user_id', 'users.id')
      .select(['users.name', 'users.status', 'users.password_hash', 'user_roles.role_id'])
      .where('users.email', '=', 'privacy@globex.test')
      .execute();
    expect(admin).toEqual([
      { name: 'Grace Globex', status: 'invited', password_hash: null, role_id: 'admin' },
    ]);
    const entries = await t.db
      .selectFrom('audit_log')
      .select(['action', 'target'])
      .where('action', '=', 'tenant.created')
      .execute();
    expect(entries).toEqual([{ action: 'tenant.created', target: 'globex' }]);

    // The admin sets their own password from the link, and signs in to their tenant.
    expect(await takeLink(t.app, created.body, strong)).toBe(303);
    const grace = new PageClient(t.app);
    const signIn = await grace.signIn('privacy@globex.test', strong);
    expect(signIn.headers.location).toBe('/backoffice/dashboard');
    expect((await grace.get('/backoffice/users')).statusCode).toBe(200);
  });

  it('a password sent along with the form is not taken: the admin is invited all the same and signs in with no password yet', async () => {
    const op = new PageClient(t.app);
    expect((await op.signIn(operator.email, operator.password)).statusCode).toBe(303);
    const created = await op.submit(
      '/backoffice/operator/tenants/new',
      '/backoffice/operator/tenants',
      {
        alias: 'hooli',
        name: 'Hal Hooli',
        email: 'privacy@hooli.test',
        password: 'a long enough password',
      },
    );
    expect(created.statusCode).toBe(200);
    const admin = await t.db
      .selectFrom('users')
      .select(['status', 'password_hash'])
      .where('email', '=', 'privacy@hooli.test')
      .execute();
    expect(admin).toEqual([{ status: 'invited', password_hash: null }]);
    const hal = new PageClient(t.app);
    expect((await hal.signIn('privacy@hooli.test', 'a long enough password')).statusCode).toBe(401);
  });

  it('when the audit entry cannot be written, registering fails and leaves no tenant nor user behind', async () => {
    const op = new PageClient(t.app);
    expect((await op.signIn(operator.email, operator.password)).statusCode).toBe(303);
    await op.get('/backoffice/operator/tenants/new');
    await refuseAuditEntries(t.db);
    let failed: Awaited<ReturnType<PageClient['post']>>;
    try {
      failed = await op.post('/backoffice/operator/tenants', {
        alias: 'initech',
        name: 'Ines Initech',
        email: 'privacy@initech.test',
      });
    } finally {
      await acceptAuditEntries(t.db);
    }
    expect(failed.statusCode).toBe(500);
    expect(await tenantRows('initech')).toEqual([]);
    const users = await t.db
      .selectFrom('users')
      .select('email')
      .where('email', '=', 'privacy@initech.test')
      .execute();
    expect(users).toEqual([]);
  });
});

describe.each(stores)('forgotten passwords without SMTP, on $name', (store) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startBackofficeApp(store);
  });
  afterAll(() => t?.close());

  it('the page says to ask an admin, and no link is made', async () => {
    const visitor = new PageClient(t.app);
    const page = await visitor.get('/backoffice/forgot-password');
    expect(textOf(page.body)).toContain('Ask an admin of your team for a password link');
    const a = await seedTenant(t.db);
    await visitor.post('/backoffice/forgot-password', { email: a.tenant.email });
    expect(await t.db.selectFrom('account_tokens').selectAll().execute()).toEqual([]);
  });
});
