/**
 * Provisioning as a bank's identity provider does it, end to end: an admin makes a SCIM token in
 * the back-office; through it a person is created, given a role by joining its group, signs in
 * to the back-office, is deactivated (their session ends at that moment) and deleted, each step
 * in the audit log as made by the token. And what a token may not do: see or change another
 * tenant's users, take an e-mail any account has, leave the tenant without an active admin.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAudit } from '../../src/audit-trail/index.js';
import {
  operator,
  PageClient,
  signedIn,
  startBackofficeApp,
  textOf,
} from '../backoffice/support.js';
import { takeLink } from '../backoffice/team-support.js';
import type { TestApp } from '../helpers/app.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import {
  expectScimError,
  makeScimToken,
  patchSchema,
  type ScimClient,
  scimBase,
  scimClient,
} from './support.js';

const tokenPattern = /scim_[A-Za-z0-9_-]{43}/;

describe.each(stores)('provisioning over SCIM on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let scim: ScimClient;

  beforeAll(async () => {
    t = await startBackofficeApp(store);
    a = await seedTenant(t.db);
    scim = scimClient(t.app, (await makeScimToken(t.db, a.tenant.id)).token);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a joiner is created, given a role, signs in; deactivated, their session ends at once; deleted; all audited as the token', async () => {
    const admin = await signedIn(t.app, a.tenant.email);
    const made = await admin.submit('/backoffice/settings/scim', '/backoffice/settings/scim', {
      name: 'Entra ID',
    });
    expect(made.statusCode).toBe(303);
    const shown = await admin.get(String(made.headers.location));
    const token = tokenPattern.exec(shown.body)?.[0] ?? '';
    expect(token).not.toBe('');
    const idp = scimClient(t.app, token);

    const joiner = await idp.post('/Users', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: 'Somchai.Jaidee@Bank.example',
      externalId: 'e7d1b4c2-5b7f-4a43-9d3e-2b0c9a1f6e10',
      name: { givenName: 'Somchai', familyName: 'Jaidee', formatted: 'Somchai Jaidee' },
      emails: [{ value: 'somchai.jaidee@bank.example', type: 'work', primary: true }],
      active: true,
    });
    expect(joiner.status).toBe(201);
    const id = joiner.body.id as string;
    expect(joiner.body.userName).toBe('somchai.jaidee@bank.example');
    const joined = await idp.patch('/Groups/customer_service', {
      schemas: [patchSchema],
      Operations: [{ op: 'Add', path: 'members', value: [{ value: id }] }],
    });
    expect(joined.status).toBe(204);

    // The person sets a password through the back-office's own link, and signs in.
    await admin.get(`/backoffice/users/${id}`);
    const link = await admin.post(`/backoffice/users/${id}/link`, {});
    const password = 'tamarind lantern quietly ferry';
    expect(await takeLink(t.app, link.body, password)).toBe(303);
    const person = await signedIn(t.app, 'somchai.jaidee@bank.example', password);
    // Customer service's pages open to them: the group gave the role.
    expect((await person.get('/backoffice/customers')).statusCode).toBe(200);

    const leaver = await idp.patch(`/Users/${id}`, {
      schemas: [patchSchema],
      Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
    });
    expect(leaver.status).toBe(200);
    expect(leaver.body.active).toBe(false);
    const after = await person.get('/backoffice/customers');
    expect(after.statusCode).toBe(303);
    expect(String(after.headers.location)).toMatch(/^\/backoffice\/sign-in/);
    const again = await new PageClient(t.app).signIn('somchai.jaidee@bank.example', password);
    expect(again.statusCode).toBe(401);

    expect((await idp.delete(`/Users/${id}`)).status).toBe(204);
    expectScimError(await idp.get(`/Users/${id}`), 404);

    const prefix = token.slice(0, 13);
    const { items } = await listAudit(
      t.db,
      { tenantId: a.tenant.id },
      { actor: `scim:${prefix}` },
      undefined,
    );
    const steps = [...items].reverse();
    expect(steps.map((e) => e.action)).toEqual([
      'user.provisioned',
      'user.changed',
      'user.disabled',
      'user.removed',
    ]);
    for (const entry of steps) {
      expect(entry).toMatchObject({
        actorKind: 'tenant',
        actor: `scim:${prefix}`,
        actorName: 'Entra ID',
        target: 'somchai.jaidee@bank.example',
      });
    }
    const details = steps.map((e) => JSON.parse(e.details ?? '{}'));
    expect(details[0]).toMatchObject({
      user_id: id,
      name: 'Somchai Jaidee',
      status: 'active',
      by: 'scim',
      external_id: 'e7d1b4c2-5b7f-4a43-9d3e-2b0c9a1f6e10',
    });
    expect(details[1]).toMatchObject({ roles: { from: [], to: ['customer_service'] } });
    expect(details[2]).toMatchObject({ user_id: id, sessions_ended: 1 });
    expect(details[3]).toMatchObject({ user_id: id, roles: ['customer_service'] });
    // The audit log's page finds them by the token, which its "Who" offers by name.
    const audit = await admin.get(
      `/backoffice/audit?actor=${encodeURIComponent(`scim:${prefix}`)}`,
    );
    expect(audit.statusCode).toBe(200);
    expect(audit.body).toContain(
      `<option value="scim:${prefix}" selected>SCIM token Entra ID (scim:${prefix})</option>`,
    );
    const listed = textOf(audit.body);
    for (const action of ['user.provisioned', 'user.changed', 'user.disabled', 'user.removed']) {
      expect(listed).toContain(action);
    }
    const tokenMade = await listAudit(
      t.db,
      { tenantId: a.tenant.id },
      { action: 'scim_token.created' },
      undefined,
    );
    expect(tokenMade.items.map((e) => [e.actor, e.target])).toContainEqual([
      a.tenant.email,
      'Entra ID',
    ]);
  });

  it("a token of tenant B sees nothing of tenant A's users, and changes none", async () => {
    const b = await seedTenant(t.db);
    const other = scimClient(t.app, (await makeScimToken(t.db, b.tenant.id)).token);
    const mine = await scim.post('/Users', { userName: 'kanda@bank-a.example' });
    const id = mine.body.id as string;
    const listed = await other.get('/Users');
    expect(listed.body.Resources.map((r: { userName: string }) => r.userName)).toEqual([
      b.tenant.email,
    ]);
    const filtered = await other.get(
      `/Users?filter=${encodeURIComponent('userName eq "kanda@bank-a.example"')}`,
    );
    expect(filtered.body.totalResults).toBe(0);
    expectScimError(await other.get(`/Users/${id}`), 404);
    expectScimError(
      await other.patch(`/Users/${id}`, {
        schemas: [patchSchema],
        Operations: [{ op: 'replace', path: 'active', value: false }],
      }),
      404,
    );
    expectScimError(await other.put(`/Users/${id}`, { userName: 'kanda@bank-a.example' }), 404);
    expectScimError(await other.delete(`/Users/${id}`), 404);
    expectScimError(
      await other.patch('/Groups/admin', {
        schemas: [patchSchema],
        Operations: [{ op: 'add', path: 'members', value: [{ value: id }] }],
      }),
      400,
      'invalidValue',
    );
    const members = (await other.get('/Groups/admin')).body.members as Array<{ value: string }>;
    expect(members.map((m) => m.value)).not.toContain(id);
    const still = await scim.get(`/Users/${id}`);
    expect(still.body).toMatchObject({ active: true });
    expect(still.body).not.toHaveProperty('groups');
  });

  it("an e-mail any account has (another tenant's user, the operator) is 409 uniqueness", async () => {
    const b = await seedTenant(t.db);
    for (const email of [b.tenant.email, operator.email, a.tenant.email.toUpperCase()]) {
      expectScimError(await scim.post('/Users', { userName: email }), 409, 'uniqueness');
    }
    const made = await scim.post('/Users', { userName: 'renamed@bank.example' });
    expectScimError(
      await scim.patch(`/Users/${made.body.id}`, {
        schemas: [patchSchema],
        Operations: [{ op: 'replace', path: 'userName', value: b.tenant.email }],
      }),
      409,
      'uniqueness',
    );
  });

  it('the tenant keeps an active admin: removing, deactivating or deleting the last one is 409, and nothing changes', async () => {
    const c = await seedTenant(t.db);
    const client = scimClient(t.app, (await makeScimToken(t.db, c.tenant.id)).token);
    const admin = (
      await client.get(`/Users?filter=${encodeURIComponent(`userName eq "${c.tenant.email}"`)}`)
    ).body.Resources[0].id as string;
    const attempts = [
      await client.patch('/Groups/admin', {
        schemas: [patchSchema],
        Operations: [{ op: 'remove', path: `members[value eq "${admin}"]` }],
      }),
      await client.put('/Groups/admin', { displayName: 'Admin', members: [] }),
      await client.patch(`/Users/${admin}`, {
        schemas: [patchSchema],
        Operations: [{ op: 'replace', path: 'active', value: false }],
      }),
      await client.delete(`/Users/${admin}`),
    ];
    for (const answer of attempts) {
      const { detail } = expectScimError(answer, 409);
      expect(detail).toContain('no active admin');
    }
    expect((await client.get(`/Users/${admin}`)).body).toMatchObject({
      active: true,
      groups: [{ value: 'admin', display: 'Admin', $ref: `${scimBase}/Groups/admin` }],
    });
    // Handing the role on in one replace is not refused half way: the successor joins first.
    const successor = (await client.post('/Users', { userName: `next-${c.tenant.email}` })).body
      .id as string;
    const handed = await client.patch('/Groups/admin', {
      schemas: [patchSchema],
      Operations: [{ op: 'replace', path: 'members', value: [{ value: successor }] }],
    });
    expect(handed.status).toBe(204);
    const members = (await client.get('/Groups/admin')).body.members as Array<{ value: string }>;
    expect(members.map((m) => m.value)).toEqual([successor]);
  });
});
