/**
 * The provisioning sequences of the two identity providers banks use, with their requests as
 * their own documents write them:
 *
 * - Microsoft Entra ID ("Tutorial: Develop and plan provisioning for a SCIM endpoint", its user
 *   and group operations): a query by userName answering nobody, a POST with `externalId`,
 *   PATCHes with `Replace` and, for `active`, the string `"False"` Entra sends, a group found by
 *   `displayName` with `excludedAttributes=members`, members added and removed by value, a
 *   DELETE. Entra's example user names are `Test_User_<uuid>`; here `userName` is the e-mail the
 *   person signs in with, so each is written with the `@testuser.com` its e-mails have.
 * - Okta ("Okta and SCIM Version 2.0"): the query with `startIndex=1&count=100`, a POST with
 *   `password` and `locale` (neither kept), a PUT, deactivation by PATCH without a path and by
 *   PUT with `active: false`, a pushed group renamed to its own name and its members added and
 *   removed with `members[value eq "…"]`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import {
  expectScimError,
  groupSchema,
  listSchema,
  makeScimToken,
  type ScimClient,
  scimBase,
  scimClient,
  userSchema,
} from './support.js';

const patchOp = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

describe.each(stores)('identity providers provisioning on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let scim: ScimClient;

  beforeAll(async () => {
    t = await startTestApp(store);
    a = await seedTenant(t.db);
    scim = scimClient(t.app, (await makeScimToken(t.db, a.tenant.id)).token);
  });
  afterAll(async () => {
    await t?.close();
  });

  it("Microsoft Entra ID's sequence: query, create, read, update, disable, group members, delete", async () => {
    const userName = 'Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1@testuser.com';
    const query = `/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`;
    const none = await scim.get(query);
    expect(none.status).toBe(200);
    expect(none.body).toEqual({
      schemas: [listSchema],
      totalResults: 0,
      startIndex: 1,
      itemsPerPage: 0,
      Resources: [],
    });

    const made = await scim.post('/Users', {
      schemas: [
        'urn:ietf:params:scim:schemas:core:2.0:User',
        'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User',
      ],
      externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
      userName,
      active: true,
      emails: [
        {
          primary: true,
          type: 'work',
          value: 'Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com',
        },
      ],
      meta: { resourceType: 'User' },
      name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
      roles: [],
    });
    expect(made.status).toBe(201);
    const id = made.body.id as string;
    expect(made.body).toMatchObject({
      schemas: [userSchema],
      id,
      externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
      userName: userName.toLowerCase(),
      active: true,
      emails: [
        {
          primary: true,
          type: 'work',
          value: 'Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com',
        },
      ],
      name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
      meta: { resourceType: 'User', location: `${scimBase}/Users/${id}` },
    });
    expect(made.body).not.toHaveProperty('roles');

    expect((await scim.get(`/Users/${id}`)).body).toMatchObject({ id, active: true });
    // Entra ID compares userName in any case: the query finds the user it made.
    const found = await scim.get(query);
    expect(found.body.totalResults).toBe(1);
    expect(found.body.Resources[0].id).toBe(id);
    const byExternalId = await scim.get(
      `/Users?filter=${encodeURIComponent('externalId eq "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef"')}`,
    );
    expect(byExternalId.body.Resources.map((r: { id: string }) => r.id)).toEqual([id]);

    // Update User [Multi-valued properties]
    const multi = await scim.patch(`/Users/${id}`, {
      schemas: [patchOp],
      Operations: [
        {
          op: 'Replace',
          path: 'emails[type eq "work"].value',
          value: 'updatedEmail@microsoft.com',
        },
        { op: 'Replace', path: 'name.familyName', value: 'updatedFamilyName' },
      ],
    });
    expect(multi.status).toBe(200);
    expect(multi.body.emails).toEqual([
      { primary: true, type: 'work', value: 'updatedEmail@microsoft.com' },
    ]);
    expect(multi.body.name).toEqual({
      formatted: 'givenName updatedFamilyName',
      familyName: 'updatedFamilyName',
      givenName: 'givenName',
    });
    const byWorkEmail = await scim.get(
      `/Users?filter=${encodeURIComponent('emails[type eq "work"].value eq "updatedemail@microsoft.com"')}`,
    );
    expect(byWorkEmail.body.Resources.map((r: { id: string }) => r.id)).toEqual([id]);

    // Update User [Single-valued properties]
    const renamed = await scim.patch(`/Users/${id}`, {
      schemas: [patchOp],
      Operations: [
        {
          op: 'Replace',
          path: 'userName',
          value: '5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com',
        },
      ],
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.userName).toBe('5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com');

    // Disable User, with the string Entra ID sends for a boolean.
    const disabled = await scim.patch(`/Users/${id}`, {
      Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
      schemas: [patchOp],
    });
    expect(disabled.status).toBe(200);
    expect(disabled.body.active).toBe(false);
    const enabled = await scim.patch(`/Users/${id}`, {
      Operations: [{ op: 'Replace', path: 'active', value: true }],
      schemas: [patchOp],
    });
    expect(enabled.body.active).toBe(true);

    // Get Group by displayName, then its members added and removed.
    const group = await scim.get(
      `/Groups?excludedAttributes=members&filter=${encodeURIComponent('displayName eq "customer service"')}`,
    );
    expect(group.status).toBe(200);
    expect(group.body).toEqual({
      schemas: [listSchema],
      totalResults: 1,
      startIndex: 1,
      itemsPerPage: 1,
      Resources: [
        {
          schemas: [groupSchema],
          id: 'customer_service',
          displayName: 'Customer service',
          meta: { resourceType: 'Group', location: `${scimBase}/Groups/customer_service` },
        },
      ],
    });
    const colleague = (await scim.post('/Users', { userName: 'colleague@testuser.com' })).body
      .id as string;
    const added = await scim.patch('/Groups/customer_service', {
      schemas: [patchOp],
      Operations: [
        {
          op: 'Add',
          path: 'members',
          value: [
            { $ref: null, value: id },
            { $ref: null, value: colleague },
          ],
        },
      ],
    });
    expect(added.status).toBe(204);
    expect((await scim.get(`/Users/${id}`)).body.groups).toEqual([
      {
        value: 'customer_service',
        display: 'Customer service',
        $ref: `${scimBase}/Groups/customer_service`,
      },
    ]);
    const member = await scim.get(
      `/Groups?excludedAttributes=members&filter=${encodeURIComponent(`id eq "customer_service" and members[value eq "${id}"]`)}`,
    );
    expect(member.body.totalResults).toBe(1);
    const removed = await scim.patch('/Groups/customer_service', {
      schemas: [patchOp],
      Operations: [{ op: 'Remove', path: 'members', value: [{ $ref: null, value: id }] }],
    });
    expect(removed.status).toBe(204);
    expect((await scim.get(`/Users/${id}`)).body).not.toHaveProperty('groups');
    // Only the member named in the value leaves.
    const left = (await scim.get('/Groups/customer_service')).body.members as Array<{
      value: string;
    }>;
    expect(left.map((m) => m.value)).toEqual([colleague]);
    // The tenant's admin kept the role they had.
    const admin = await scim.get(
      `/Users?filter=${encodeURIComponent(`userName eq "${a.tenant.email}"`)}`,
    );
    expect(admin.body.Resources[0].groups.map((g: { value: string }) => g.value)).toEqual([
      'admin',
    ]);

    // Create Group with a name no role has: refused, naming the roles there are.
    const refused = expectScimError(
      await scim.post('/Groups', {
        schemas: [
          'urn:ietf:params:scim:schemas:core:2.0:Group',
          'http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/2.0/Group',
        ],
        externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159',
        displayName: 'displayName',
        meta: { resourceType: 'Group' },
      }),
      400,
      'invalidValue',
    );
    expect(refused.detail).toContain(
      'Admin, Editor, Reviewer, Approver, Customer service, Auditor',
    );

    const deleted = await scim.delete(`/Users/${id}`);
    expect(deleted.status).toBe(204);
    expectScimError(await scim.get(`/Users/${id}`), 404);
  });

  it("Okta's sequence: query with paging, create, update by PUT, deactivate, push a group and its members", async () => {
    const none = await scim.get(
      '/Users?filter=userName%20eq%20%22test.user%40okta.local%22&startIndex=1&count=100',
    );
    expect(none.body).toEqual({
      schemas: [listSchema],
      totalResults: 0,
      startIndex: 1,
      itemsPerPage: 0,
      Resources: [],
    });

    const made = await scim.post('/Users', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: 'test.user@okta.local',
      name: { givenName: 'Test', familyName: 'User' },
      emails: [{ primary: true, value: 'test.user@okta.local', type: 'work' }],
      displayName: 'Test User',
      locale: 'en-US',
      externalId: '00ujl29u0le5T6Aj10h7',
      groups: [],
      password: '1mz050nq',
      active: true,
    });
    expect(made.status).toBe(201);
    const id = made.body.id as string;
    expect(made.body).toMatchObject({
      userName: 'test.user@okta.local',
      name: { formatted: 'Test User', givenName: 'Test', familyName: 'User' },
      displayName: 'Test User',
      externalId: '00ujl29u0le5T6Aj10h7',
      active: true,
    });
    for (const gone of ['password', 'locale', 'groups']) expect(made.body).not.toHaveProperty(gone);
    // No password is kept: the person signs in through the identity provider.
    const row = await t.db
      .selectFrom('users')
      .select(['password_hash', 'status'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ password_hash: null, status: 'active' });

    const found = await scim.get(
      '/Users?filter=userName%20eq%20%22test.user%40okta.local%22&startIndex=1&count=100',
    );
    expect(found.body).toMatchObject({ totalResults: 1, startIndex: 1, itemsPerPage: 1 });

    const put = {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      id,
      userName: 'test.user@okta.local',
      name: { givenName: 'Another', familyName: 'User' },
      emails: [{ primary: true, value: 'test.user@okta.local', type: 'work' }],
      displayName: 'Another User',
      locale: 'en-US',
      externalId: '00u1dhhb1fkIGP7RL1d8',
      groups: [],
      active: true,
      meta: { resourceType: 'User', created: '2019-09-23T23:32:33.000Z' },
    };
    const updated = await scim.put(`/Users/${id}`, put);
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      name: { formatted: 'Another User', givenName: 'Another', familyName: 'User' },
      displayName: 'Another User',
      externalId: '00u1dhhb1fkIGP7RL1d8',
    });
    expect(updated.body.meta.created).not.toBe('2019-09-23T23:32:33.000Z');

    const deactivated = await scim.patch(`/Users/${id}`, {
      schemas: [patchOp],
      Operations: [{ op: 'replace', value: { active: false } }],
    });
    expect(deactivated.status).toBe(200);
    expect(deactivated.body.active).toBe(false);
    const reactivated = await scim.put(`/Users/${id}`, put);
    expect(reactivated.body.active).toBe(true);
    const byPut = await scim.put(`/Users/${id}`, { ...put, active: false });
    expect(byPut.status).toBe(200);
    expect(byPut.body.active).toBe(false);
    const status = await t.db
      .selectFrom('users')
      .select('status')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(status.status).toBe('disabled');
    // A PUT that leaves `active` out lets nobody in again.
    const { active: _omitted, ...profileOnly } = put;
    expect((await scim.put(`/Users/${id}`, profileOnly)).body.active).toBe(false);

    // Push Groups: the group of an existing role, its name sent back as it is, members by value.
    const pushed = await scim.post('/Groups', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
      displayName: 'Approver',
      members: [],
    });
    expect(pushed.status).toBe(201);
    expect(pushed.headers.location).toBe(`${scimBase}/Groups/approver`);
    expect(pushed.body).toEqual({
      schemas: [groupSchema],
      id: 'approver',
      displayName: 'Approver',
      meta: { resourceType: 'Group', location: `${scimBase}/Groups/approver` },
    });
    const same = await scim.patch('/Groups/approver', {
      schemas: [patchOp],
      Operations: [{ op: 'replace', value: { id: 'approver', displayName: 'Approver' } }],
    });
    expect(same.status).toBe(204);
    const add = await scim.patch('/Groups/approver', {
      schemas: [patchOp],
      Operations: [
        { op: 'add', path: 'members', value: [{ value: id, display: 'test.user@okta.local' }] },
      ],
    });
    expect(add.status).toBe(204);
    expect((await scim.get('/Groups/approver')).body.members).toEqual([
      { value: id, display: 'Another User', $ref: `${scimBase}/Users/${id}`, type: 'User' },
    ]);
    const remove = await scim.patch('/Groups/approver', {
      schemas: [patchOp],
      Operations: [{ op: 'remove', path: `members[value eq "${id}"]` }],
    });
    expect(remove.status).toBe(204);
    expect((await scim.get('/Groups/approver')).body).not.toHaveProperty('members');

    // A rename is the back-office's; deleting a role is refused.
    expectScimError(
      await scim.patch('/Groups/approver', {
        schemas: [patchOp],
        Operations: [{ op: 'replace', value: { id: 'approver', displayName: 'Test SCIMv2' } }],
      }),
      400,
      'mutability',
    );
    expectScimError(await scim.delete('/Groups/approver'), 400, 'mutability');
    expect((await scim.get('/Groups/approver')).status).toBe(200);

    const groups = await scim.get('/Groups?startIndex=1&count=100');
    expect(groups.body.Resources.map((g: { displayName: string }) => g.displayName)).toEqual([
      'Admin',
      'Editor',
      'Reviewer',
      'Approver',
      'Customer service',
      'Auditor',
    ]);
  });
});
