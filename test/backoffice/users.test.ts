import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { type SmtpListener, startSmtpServer } from '../helpers/smtp.js';
import { storeAgnostic } from '../helpers/stores.js';
import { operator, PageClient, signedIn, startBackofficeApp, textOf } from './support.js';
import { linkIn, takeLink, userIdOf } from './team-support.js';

const strong = 'quiet harbour lantern morning';

describe.each(storeAgnostic)(
  'a tenant’s team, with invitations e-mailed over SMTP, on $name',
  (store) => {
    let t: TestApp;
    let smtp: SmtpListener;
    let a: SeededTenant;
    let admin: PageClient;

    beforeAll(async () => {
      smtp = await startSmtpServer();
      t = await startBackofficeApp(store, {
        SMTP_URL: smtp.url,
        MAIL_FROM: 'Consent <no-reply@consent.test>',
      });
      a = await seedTenant(t.db);
      admin = await signedIn(t.app, a.tenant.email);
    });
    afterAll(async () => {
      await t?.close();
      await smtp?.close();
    });

    const auditActions = async () =>
      (
        await t.db
          .selectFrom('audit_log')
          .select(['action', 'actor', 'actor_name', 'target'])
          .where('tenant_id', '=', a.tenant.id)
          .orderBy('created_at')
          .orderBy('id')
          .execute()
      ).map((e) => `${e.action} by ${e.actor_name ?? e.actor} on ${e.target ?? ''}`);

    async function invite(name: string, email: string, role: string) {
      const page = await admin.submit('/backoffice/users/new', '/backoffice/users', {
        name,
        email,
        roles: role,
      });
      expect(page.statusCode).toBe(200);
      return page;
    }

    it('an admin invites a person: the e-mail carries a one-time link, and the page does not show it', async () => {
      const page = await invite('Edna Editor', 'edna@acme.test', 'editor');
      expect(textOf(page.body)).toContain('The invitation was e-mailed to edna@acme.test');
      expect(page.body).not.toContain('/backoffice/password?token=');
      const mail = await smtp.next((m) => m.to.includes('edna@acme.test'));
      expect(mail.from).toBe('no-reply@consent.test');
      expect(mail.subject).toBe(`Your invitation to the consent back-office of ${a.tenant.alias}`);
      expect(mail.text).toContain('Hello Edna Editor');
      const users = await t.db
        .selectFrom('users')
        .select(['email', 'status', 'password_hash'])
        .where('email', '=', 'edna@acme.test')
        .execute();
      expect(users).toEqual([{ email: 'edna@acme.test', status: 'invited', password_hash: null }]);
    });

    it('an invited person cannot sign in before setting a password, and then signs in with it', async () => {
      expect((await new PageClient(t.app).signIn('edna@acme.test', strong)).statusCode).toBe(401);
      const { path: link, token } = linkIn(
        (await smtp.next((m) => m.to.includes('edna@acme.test'))).text,
      );
      const visitor = new PageClient(t.app);
      const form = await visitor.get(link);
      expect(form.statusCode).toBe(200);
      expect(textOf(form.body)).toContain('For edna@acme.test');

      const weak = await visitor.post('/backoffice/password', {
        token,
        new_password: 'password1234',
        confirm_password: 'password1234',
      });
      expect(weak.statusCode).toBe(400);
      expect(textOf(weak.body)).toContain('This password is too easy to guess.');

      const set = await visitor.post('/backoffice/password', {
        token,
        new_password: strong,
        confirm_password: strong,
      });
      expect(set.statusCode).toBe(303);
      expect(set.headers.location).toBe('/backoffice/sign-in?notice=password-set');
      // Once only.
      expect((await new PageClient(t.app).get(link)).statusCode).toBe(410);

      const edna = await signedIn(t.app, 'edna@acme.test', strong);
      expect((await edna.get('/backoffice/templates')).statusCode).toBe(200);
      const users = await edna.get('/backoffice/users');
      expect(users.statusCode).toBe(403);
      expect(textOf(users.body)).toContain('it needs the permission users:view');
    });

    it('the navigation shows each user only what their roles allow', async () => {
      const edna = await signedIn(t.app, 'edna@acme.test', strong);
      const nav =
        /<nav aria-label="Main">[\s\S]*?<\/nav>/.exec(
          (await edna.get('/backoffice/dashboard')).body,
        )?.[0] ?? '';
      expect(nav).toContain('href="/backoffice/templates"');
      for (const hidden of [
        '/customers',
        '/exports',
        '/users',
        '/roles',
        '/api-keys',
        '/audit',
        '/log',
        '/settings',
      ]) {
        expect(nav).not.toContain(`href="/backoffice${hidden}"`);
      }
      const adminNav =
        /<nav aria-label="Main">[\s\S]*?<\/nav>/.exec(
          (await admin.get('/backoffice/dashboard')).body,
        )?.[0] ?? '';
      for (const shown of [
        '/templates',
        '/customers',
        '/exports',
        '/users',
        '/roles',
        '/api-keys',
        '/audit',
        '/log',
        '/settings',
      ]) {
        expect(adminNav).toContain(`href="/backoffice${shown}"`);
      }
    });

    it('an e-mail that any account has (a user of any tenant, or the operator) cannot be invited', async () => {
      const other = await seedTenant(t.db);
      for (const email of [other.tenant.email, operator.email, 'EDNA@acme.test']) {
        const page = await admin.submit('/backoffice/users/new', '/backoffice/users', {
          name: 'Someone',
          email,
          roles: 'editor',
        });
        expect(page.statusCode).toBe(400);
        expect(textOf(page.body)).toContain('An account with this e-mail already exists.');
      }
    });

    it('disabling a user ends their sessions at once; enabled, they sign in again', async () => {
      const edna = await signedIn(t.app, 'edna@acme.test', strong);
      const id = await userIdOf(t.db, 'edna@acme.test');
      await admin.get(`/backoffice/users/${id}`);
      expect((await admin.post(`/backoffice/users/${id}/disable`, {})).statusCode).toBe(303);
      const after = await edna.get('/backoffice/templates');
      expect(after.statusCode).toBe(303);
      expect(after.headers.location).toMatch(/^\/backoffice\/sign-in/);
      expect((await new PageClient(t.app).signIn('edna@acme.test', strong)).statusCode).toBe(401);

      await admin.get(`/backoffice/users/${id}`);
      expect((await admin.post(`/backoffice/users/${id}/enable`, {})).statusCode).toBe(303);
      expect((await new PageClient(t.app).signIn('edna@acme.test', strong)).statusCode).toBe(303);
    });

    it('a reset link from an admin sets a new password and ends the other sessions', async () => {
      const edna = await signedIn(t.app, 'edna@acme.test', strong);
      const id = await userIdOf(t.db, 'edna@acme.test');
      await admin.get(`/backoffice/users/${id}`);
      const issued = await admin.post(`/backoffice/users/${id}/link`, {});
      expect(textOf(issued.body)).toContain(
        'The password reset link was e-mailed to edna@acme.test',
      );
      const mail = await smtp.next(
        (m) => m.to.includes('edna@acme.test') && m.subject === 'Set a new password',
      );
      const next = 'amber river clockwork violin';
      expect(await takeLink(t.app, mail.text, next)).toBe(303);
      expect((await edna.get('/backoffice/templates')).statusCode).toBe(303);
      expect((await new PageClient(t.app).signIn('edna@acme.test', strong)).statusCode).toBe(401);
      expect((await new PageClient(t.app).signIn('edna@acme.test', next)).statusCode).toBe(303);
    });

    it('a tenant always keeps an active admin: demoting, disabling or removing the last one is refused', async () => {
      const self = (
        await t.db
          .selectFrom('users')
          .select('id')
          .where('email', '=', a.tenant.email)
          .executeTakeFirstOrThrow()
      ).id;
      await admin.get(`/backoffice/users/${self}`);
      const demoted = await admin.post(`/backoffice/users/${self}`, {
        name: 'Administrator',
        roles: 'editor',
      });
      expect(demoted.statusCode).toBe(409);
      expect(textOf(demoted.body)).toContain('The tenant would have no active admin left.');
      const disabled = await admin.post(`/backoffice/users/${self}/disable`, {});
      expect(disabled.statusCode).toBe(409);
      const removed = await admin.post(`/backoffice/users/${self}/remove`, { confirm: 'true' });
      expect(removed.statusCode).toBe(409);
      const roles = await t.db
        .selectFrom('user_roles')
        .select('role_id')
        .where('user_id', '=', self)
        .execute();
      expect(roles).toEqual([{ role_id: 'admin' }]);
    });

    it('a custom role from the matrix grants exactly its permissions', async () => {
      const made = await admin.submit('/backoffice/roles/new', '/backoffice/roles', {
        name: 'Key keeper',
        description: 'Looks after API keys',
        permissions: 'api_keys:view',
      });
      expect(made.statusCode).toBe(303);
      const role = await t.db
        .selectFrom('roles')
        .select(['id', 'permissions'])
        .where('name', '=', 'Key keeper')
        .executeTakeFirstOrThrow();
      expect(role.permissions).toBe('api_keys:view');
      await invite('Kim Keys', 'kim@acme.test', role.id);
      expect(
        await takeLink(
          t.app,
          (await smtp.next((m) => m.to.includes('kim@acme.test'))).text,
          strong,
        ),
      ).toBe(303);
      const kim = await signedIn(t.app, 'kim@acme.test', strong);
      expect((await kim.get('/backoffice/api-keys')).statusCode).toBe(200);
      expect((await kim.get('/backoffice/templates')).statusCode).toBe(403);
      // Built-in roles cannot be changed.
      await admin.get('/backoffice/roles/editor');
      expect(
        (
          await admin.post('/backoffice/roles/editor', {
            name: 'Editor',
            description: '',
            permissions: 'users:view',
          })
        ).statusCode,
      ).toBe(409);
    });

    it('a user who leaves revokes no API key: keys belong to the tenant', async () => {
      const kimId = await userIdOf(t.db, 'kim@acme.test');
      await admin.get(`/backoffice/users/${kimId}`);
      expect(
        (await admin.post(`/backoffice/users/${kimId}/remove`, { confirm: 'true' })).statusCode,
      ).toBe(303);
      const api = await t.app.inject({
        method: 'GET',
        url: '/api/v1/consent-templates/nothing_here/latest',
        headers: a.headers,
      });
      expect(api.statusCode).toBe(404);
      expect(api.json()).toEqual({ code: '1004', message: 'Template not found.' });
    });

    it('the audit log names who did each step, removed users included', async () => {
      const actions = await auditActions();
      expect(actions).toEqual(
        expect.arrayContaining([
          'user.invited by Administrator on edna@acme.test',
          'user.invitation_taken by Edna Editor on edna@acme.test',
          'user.disabled by Administrator on edna@acme.test',
          'user.enabled by Administrator on edna@acme.test',
          'user.password_reset_issued by Administrator on edna@acme.test',
          'user.password_reset by Edna Editor on edna@acme.test',
          'role.created by Administrator on Key keeper',
          'user.removed by Administrator on kim@acme.test',
          'sign_in by Kim Keys on ',
        ]),
      );
    });

    it('the time zone setting is checked and its change audited', async () => {
      const bad = await admin.submit('/backoffice/settings', '/backoffice/settings', {
        time_zone: 'Mars/Olympus',
      });
      expect(bad.statusCode).toBe(400);
      const good = await admin.submit('/backoffice/settings', '/backoffice/settings', {
        time_zone: 'Asia/Bangkok',
      });
      expect(good.statusCode).toBe(303);
      expect(await auditActions()).toContain('settings.time_zone_changed by Administrator on ');
      // Dates are now shown in Bangkok time; the stored instant stays in the markup.
      const audit = await admin.get('/backoffice/audit');
      expect(audit.body).toMatch(/<span class="nowrap">\d\d:\d\d:\d\d GMT\+7<\/span>/);
      expect(audit.body).not.toContain(' UTC</span>');
    });
  },
);

describe.each(storeAgnostic)('invitations without SMTP, on $name', (store) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startBackofficeApp(store);
  });
  afterAll(() => t?.close());

  it('the admin is shown the link once, to pass on; it works', async () => {
    const a = await seedTenant(t.db);
    const admin = await signedIn(t.app, a.tenant.email);
    const page = await admin.submit('/backoffice/users/new', '/backoffice/users', {
      name: 'Rita Reviewer',
      email: 'rita@acme.test',
      roles: 'reviewer',
    });
    expect(textOf(page.body)).toContain('Copy the link now: it is shown only this once.');
    expect(await takeLink(t.app, page.body, strong)).toBe(303);
    const rita = await signedIn(t.app, 'rita@acme.test', strong);
    expect((await rita.get('/backoffice/templates')).statusCode).toBe(200);
    // The user's page offers a new link, never shows the old one.
    const id = await userIdOf(t.db, 'rita@acme.test');
    expect((await admin.get(`/backoffice/users/${id}`)).body).not.toContain('token=');
  });
});
