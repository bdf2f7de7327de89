/**
 * The tenant's SCIM tokens in the back-office (Settings, SCIM provisioning): a token is shown
 * once, to the session that made it, and only its SHA-256 and prefix are kept; the list shows
 * each token's name, prefix, maker, last use and status; revoking asks first, and the token is
 * refused from the next request. `users:view` sees the page, `users:edit` makes and revokes;
 * making and revoking are audited.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../../src/accounts/users.js';
import { listAudit } from '../../src/audit-trail/index.js';
import { hashPassword } from '../../src/tenants/passwords.js';
import {
  type PageClient,
  signedIn,
  startBackofficeApp,
  tenantPassword,
  textOf,
} from '../backoffice/support.js';
import type { TestApp } from '../helpers/app.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { testPasswordHashCost } from '../helpers/time.js';
import { eventually } from '../helpers/webhook-receiver.js';
import { scimClient } from './support.js';

const tokenPattern = /scim_[A-Za-z0-9_-]{43}/g;

describe.each(stores)('SCIM tokens in the back-office on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let admin: PageClient;

  beforeAll(async () => {
    t = await startBackofficeApp(store);
    a = await seedTenant(t.db);
    admin = await signedIn(t.app, a.tenant.email);
  });
  afterAll(async () => {
    await t?.close();
  });

  async function create(page: PageClient, name: string) {
    const made = await page.submit('/backoffice/settings/scim', '/backoffice/settings/scim', {
      name,
    });
    expect(made.statusCode).toBe(303);
    expect(made.headers.location).toBe('/backoffice/settings/scim?notice=created');
    expect(made.body).not.toMatch(tokenPattern);
    return made;
  }

  it('a new token is shown once, to the session that made it; only its hash and prefix are kept', async () => {
    const other = await signedIn(t.app, a.tenant.email);
    await create(admin, 'Entra ID');
    const first = await admin.get('/backoffice/settings/scim?notice=created');
    expect(first.statusCode).toBe(200);
    expect(first.headers['cache-control']).toBe('no-store');
    const shown = first.body.match(tokenPattern) ?? [];
    expect(shown.length).toBe(1);
    const token = shown[0] ?? '';
    expect(textOf(first.body)).toContain('it is shown only this once');
    expect(textOf(first.body)).toContain('Token created.');
    expect(textOf(first.body)).toContain('https://consent.test/scim/v2');

    const rows = await t.db
      .selectFrom('scim_tokens')
      .selectAll()
      .where('tenant_id', '=', a.tenant.id)
      .execute();
    expect(rows).toEqual([
      {
        id: expect.any(String),
        tenant_id: a.tenant.id,
        name: 'Entra ID',
        prefix: token.slice(0, 13),
        token_hash: createHash('sha256').update(token).digest('hex'),
        created_at: expect.any(String),
        created_by: a.tenant.email,
        last_used_at: null,
        revoked_at: null,
      },
    ]);
    expect(JSON.stringify(rows)).not.toContain(token.slice(13));

    // A reload, and another session of the same person, see no token; the list names it.
    for (const page of [admin, other]) {
      const later = await page.get('/backoffice/settings/scim');
      expect(later.body).not.toMatch(tokenPattern);
      expect(textOf(later.body)).toContain(`Entra ID ${token.slice(0, 13)}…`);
    }

    expect((await scimClient(t.app, token).get('/Users')).status).toBe(200);
    // Written beside the request, as bookkeeping: it lands a moment after the answer.
    const lastUsed = () =>
      t.db
        .selectFrom('scim_tokens')
        .select('last_used_at')
        .where('prefix', '=', token.slice(0, 13))
        .executeTakeFirstOrThrow();
    await eventually(async () => (await lastUsed()).last_used_at !== null);
  });

  it('a name is required: the form comes back with the reason, and no token is made', async () => {
    const before = await t.db.selectFrom('scim_tokens').select('id').execute();
    const refused = await admin.submit('/backoffice/settings/scim', '/backoffice/settings/scim', {
      name: '   ',
    });
    expect(refused.statusCode).toBe(400);
    expect(textOf(refused.body)).toContain('A name of 1 to 100 characters');
    expect(await t.db.selectFrom('scim_tokens').select('id').execute()).toEqual(before);
  });

  it('revoking asks first, then refuses the token from the next request; both acts are audited', async () => {
    await create(admin, 'Okta');
    const token =
      (await admin.get('/backoffice/settings/scim')).body.match(tokenPattern)?.[0] ?? '';
    const { id } = await t.db
      .selectFrom('scim_tokens')
      .select('id')
      .where('prefix', '=', token.slice(0, 13))
      .executeTakeFirstOrThrow();
    const list = await admin.get('/backoffice/settings/scim');
    expect(list.body).toContain(`/backoffice/settings/scim/${id}/revoke`);
    const ask = await admin.get(`/backoffice/settings/scim/${id}/revoke`);
    expect(textOf(ask.body)).toContain('Revoke token "Okta"?');
    expect((await scimClient(t.app, token).get('/Users')).status).toBe(200);
    const revoked = await admin.post(`/backoffice/settings/scim/${id}/revoke`, {});
    expect(revoked.statusCode).toBe(303);
    expect((await scimClient(t.app, token).get('/Users')).status).toBe(401);
    const after = await admin.get('/backoffice/settings/scim');
    expect(textOf(after.body)).toMatch(/Okta scim_\S+… .* revoked/);
    expect(after.body).not.toContain(`/backoffice/settings/scim/${id}/revoke`);

    const entries = await listAudit(t.db, { tenantId: a.tenant.id }, { target: 'Okta' }, undefined);
    expect(
      entries.items.map((e) => [e.action, e.actor, JSON.parse(e.details ?? '{}').prefix]),
    ).toEqual([
      ['scim_token.revoked', a.tenant.email, token.slice(0, 13)],
      ['scim_token.created', a.tenant.email, token.slice(0, 13)],
    ]);
  });

  it("another tenant's admin cannot revoke a tenant's token, nor see it", async () => {
    await create(admin, 'Kept');
    const token =
      (await admin.get('/backoffice/settings/scim')).body.match(tokenPattern)?.[0] ?? '';
    const { id } = await t.db
      .selectFrom('scim_tokens')
      .select('id')
      .where('prefix', '=', token.slice(0, 13))
      .executeTakeFirstOrThrow();
    const b = await seedTenant(t.db);
    const intruder = await signedIn(t.app, b.tenant.email);
    expect(textOf((await intruder.get('/backoffice/settings/scim')).body)).not.toContain('Kept');
    expect((await intruder.get(`/backoffice/settings/scim/${id}/revoke`)).statusCode).toBe(404);
    expect((await intruder.post(`/backoffice/settings/scim/${id}/revoke`, {})).statusCode).toBe(
      404,
    );
    expect((await scimClient(t.app, token).get('/Users')).status).toBe(200);
  });

  it('users:view reads the list without the forms; without it the page is 403; users:edit is needed to make or revoke', async () => {
    const hash = await hashPassword(tenantPassword, testPasswordHashCost);
    for (const role of ['auditor', 'editor']) {
      await t.db.transaction().execute((trx) =>
        addUser(trx, a.tenant.id, {
          email: `${role}-${a.tenant.alias}@example.test`,
          name: role,
          roles: [role],
          passwordHash: hash,
        }),
      );
    }
    const { id } = await t.db
      .selectFrom('scim_tokens')
      .select('id')
      .where('tenant_id', '=', a.tenant.id)
      .where('revoked_at', 'is', null)
      .executeTakeFirstOrThrow();
    const auditor = await signedIn(t.app, `auditor-${a.tenant.alias}@example.test`);
    const read = await auditor.get('/backoffice/settings/scim');
    expect(read.statusCode).toBe(200);
    expect(textOf(read.body)).toContain('Entra ID');
    expect(read.body).not.toContain('action="/backoffice/settings/scim"');
    expect(read.body).not.toContain('/revoke');
    expect((await auditor.post('/backoffice/settings/scim', { name: 'sneaky' })).statusCode).toBe(
      403,
    );
    expect((await auditor.post(`/backoffice/settings/scim/${id}/revoke`, {})).statusCode).toBe(403);
    // The settings page links to the tokens for a reader of users, not for another.
    expect((await auditor.get('/backoffice/settings')).body).toContain('/backoffice/settings/scim');
    const editor = await signedIn(t.app, `editor-${a.tenant.alias}@example.test`);
    expect((await editor.get('/backoffice/settings/scim')).statusCode).toBe(403);
    expect(
      await t.db.selectFrom('scim_tokens').select('id').where('name', '=', 'sneaky').execute(),
    ).toEqual([]);
  });
});
