/**
 * The examples of RFC 7644 (SCIM 2.0 protocol), sent as the RFC writes them, with the answers
 * this service gives written out here: §3.3 creating a User, §3.4.1 reading it, §3.4.2 listing
 * and filtering, §3.5.1 replacing it, §3.5.2 patching a User and a Group, §3.6 deleting. The one
 * change to the RFC's requests: `userName` is the e-mail the person signs in with here, so Babs'
 * `bjensen` is written `bjensen@example.com`, the work address the RFC's examples give her.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import {
  expectScimError,
  groupSchema,
  instant,
  listSchema,
  makeScimToken,
  patchSchema,
  type ScimClient,
  scimBase,
  scimClient,
  userSchema,
  uuid,
} from './support.js';

describe.each(stores)('the examples of RFC 7644 on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let scim: ScimClient;
  let id = '';

  beforeAll(async () => {
    t = await startTestApp(store);
    a = await seedTenant(t.db);
    scim = scimClient(t.app, (await makeScimToken(t.db, a.tenant.id)).token);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('§3.3: POST /Users creates Babs, 201 with her resource and its Location', async () => {
    const made = await scim.post('/Users', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: 'bjensen@example.com',
      externalId: 'bjensen',
      name: {
        formatted: 'Ms. Barbara J Jensen III',
        familyName: 'Jensen',
        givenName: 'Barbara',
      },
    });
    expect(made.status).toBe(201);
    expect(made.headers['content-type']).toBe('application/scim+json; charset=utf-8');
    expect(made.body).toEqual({
      schemas: [userSchema],
      id: uuid,
      externalId: 'bjensen',
      userName: 'bjensen@example.com',
      name: { formatted: 'Ms. Barbara J Jensen III', familyName: 'Jensen', givenName: 'Barbara' },
      displayName: 'Ms. Barbara J Jensen III',
      emails: [{ value: 'bjensen@example.com', type: 'work', primary: true }],
      active: true,
      meta: {
        resourceType: 'User',
        created: instant,
        lastModified: instant,
        location: `${scimBase}/Users/${made.body.id}`,
      },
    });
    expect(made.headers.location).toBe(`${scimBase}/Users/${made.body.id}`);
    id = made.body.id;
  });

  it('§3.4.1: GET /Users/{id} answers the same resource', async () => {
    const read = await scim.get(`/Users/${id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      schemas: [userSchema],
      id,
      externalId: 'bjensen',
      userName: 'bjensen@example.com',
      name: { formatted: 'Ms. Barbara J Jensen III', familyName: 'Jensen', givenName: 'Barbara' },
      active: true,
      meta: { resourceType: 'User', location: `${scimBase}/Users/${id}` },
    });
  });

  it('§3.4.2: a filter of userName eq finds her, in the list format', async () => {
    const found = await scim.get(
      `/Users?filter=${encodeURIComponent('userName eq "bjensen@example.com"')}`,
    );
    expect(found.status).toBe(200);
    expect(found.body).toEqual({
      schemas: [listSchema],
      totalResults: 1,
      startIndex: 1,
      itemsPerPage: 1,
      Resources: [expect.objectContaining({ id, userName: 'bjensen@example.com' })],
    });
  });

  it('§3.4.2: attributes=userName answers each user with its id and userName only', async () => {
    const listed = await scim.get('/Users?attributes=userName');
    expect(listed.status).toBe(200);
    expect(listed.body.totalResults).toBe(2);
    expect(listed.body.Resources).toEqual([
      { schemas: [userSchema], id: expect.any(String), userName: a.tenant.email },
      { schemas: [userSchema], id, userName: 'bjensen@example.com' },
    ]);
  });

  it.each([
    ['userName eq "bjensen@example.com"', 1],
    ['username EQ "BJensen@Example.com"', 1],
    ['name.familyName co "ens"', 1],
    ['userName sw "bj"', 1],
    ['userName sw "J"', 0],
    ['externalId eq "bjensen"', 1],
    ['externalId eq "BJENSEN"', 0],
    ['emails[type eq "work" and value co "@example.com"]', 1],
    ['emails.value eq "bjensen@example.com" and active eq true', 1],
    ['userName eq "nobody@example.com" or externalId pr', 1],
    ['not (externalId pr)', 0],
    ['not (externalId eq "someone else")', 1],
  ])('§3.4.2.2: the filter %s finds %i of Babs', async (filter, expected) => {
    const found = await scim.get(`/Users?filter=${encodeURIComponent(filter)}`);
    expect(found.status, found.raw.body).toBe(200);
    const babs = (found.body.Resources as Array<{ id: string }>).filter((r) => r.id === id);
    expect(babs.length).toBe(expected);
  });

  it('§3.4.2.2: an ordering operator and an attribute not kept are refused as invalidFilter', async () => {
    for (const filter of ['meta.lastModified gt "2011-05-13T04:42:34Z"', 'title pr']) {
      expectScimError(
        await scim.get(`/Users?filter=${encodeURIComponent(filter)}`),
        400,
        'invalidFilter',
      );
    }
  });

  it('§3.5.1: PUT /Users/{id} replaces her: what it leaves out is cleared, what it names is set', async () => {
    const replaced = await scim.put(`/Users/${id}`, {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      id,
      userName: 'bjensen@example.com',
      externalId: 'bjensen',
      name: {
        formatted: 'Ms. Barbara J Jensen III',
        familyName: 'Jensen',
        givenName: 'Barbara',
        middleName: 'Jane',
      },
      roles: [],
      emails: [{ value: 'bjensen@example.com' }, { value: 'babs@jensen.org' }],
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toEqual({
      schemas: [userSchema],
      id,
      externalId: 'bjensen',
      userName: 'bjensen@example.com',
      name: { formatted: 'Ms. Barbara J Jensen III', familyName: 'Jensen', givenName: 'Barbara' },
      displayName: 'Ms. Barbara J Jensen III',
      emails: [{ value: 'bjensen@example.com' }, { value: 'babs@jensen.org' }],
      active: true,
      meta: {
        resourceType: 'User',
        created: instant,
        lastModified: instant,
        location: `${scimBase}/Users/${id}`,
      },
    });
  });

  it('§3.5.2.3: replace without a path replaces her e-mails (nickName, not kept, is ignored)', async () => {
    const patched = await scim.patch(`/Users/${id}`, {
      schemas: [patchSchema],
      Operations: [
        {
          op: 'replace',
          value: {
            emails: [
              { value: 'bjensen@example.com', type: 'work', primary: true },
              { value: 'babs@jensen.org', type: 'home' },
            ],
            nickName: 'Babs',
          },
        },
      ],
    });
    expect(patched.status).toBe(200);
    expect(patched.body.emails).toEqual([
      { value: 'bjensen@example.com', type: 'work', primary: true },
      { value: 'babs@jensen.org', type: 'home' },
    ]);
    expect(patched.body).not.toHaveProperty('nickName');
  });

  it('§3.5.2.2: remove with a value filter removes the e-mails it matches', async () => {
    const patched = await scim.patch(`/Users/${id}`, {
      schemas: [patchSchema],
      Operations: [{ op: 'remove', path: 'emails[type eq "work" and value ew "example.com"]' }],
    });
    expect(patched.status).toBe(200);
    expect(patched.body.emails).toEqual([{ value: 'babs@jensen.org', type: 'home' }]);
    // Her e-mail to sign in with is her userName, which stays.
    expect(patched.body.userName).toBe('bjensen@example.com');
  });

  it('§3.5.2.1: add without a path adds an e-mail beside those she has', async () => {
    const patched = await scim.patch(`/Users/${id}`, {
      schemas: [patchSchema],
      Operations: [
        {
          op: 'add',
          value: { emails: [{ value: 'bjensen@example.com', type: 'work' }], nickname: 'Babs' },
        },
      ],
    });
    expect(patched.status).toBe(200);
    expect(patched.body.emails).toEqual([
      { value: 'babs@jensen.org', type: 'home' },
      { value: 'bjensen@example.com', type: 'work' },
    ]);
  });

  it('§3.5.2.3: replace with a path changes one attribute, and the name made of its parts follows', async () => {
    const made = await scim.post('/Users', {
      schemas: [userSchema],
      userName: 'jsmith@example.com',
      name: { givenName: 'John', familyName: 'Smith' },
    });
    expect(made.body.name).toEqual({
      formatted: 'John Smith',
      givenName: 'John',
      familyName: 'Smith',
    });
    const patched = await scim.patch(`/Users/${made.body.id}`, {
      schemas: [patchSchema],
      Operations: [{ op: 'replace', path: 'name.familyName', value: 'Smythe' }],
    });
    expect(patched.status).toBe(200);
    expect(patched.body.name).toEqual({
      formatted: 'John Smythe',
      givenName: 'John',
      familyName: 'Smythe',
    });
  });

  it('§3.5.2.1-3: a Group (a role) gets a member, loses it by a value filter, and gets its members replaced', async () => {
    const member = (userId: string) => ({
      display: 'Babs Jensen',
      $ref: `${scimBase}/Users/${userId}`,
      value: userId,
    });
    const added = await scim.patch('/Groups/reviewer', {
      schemas: [patchSchema],
      Operations: [{ op: 'add', path: 'members', value: [member(id)] }],
    });
    expect(added.status).toBe(204);
    expect(added.body).toBeUndefined();
    const group = await scim.get('/Groups/reviewer');
    expect(group.body).toEqual({
      schemas: [groupSchema],
      id: 'reviewer',
      displayName: 'Reviewer',
      members: [
        {
          value: id,
          display: 'Ms. Barbara J Jensen III',
          $ref: `${scimBase}/Users/${id}`,
          type: 'User',
        },
      ],
      meta: { resourceType: 'Group', location: `${scimBase}/Groups/reviewer` },
    });
    expect((await scim.get(`/Users/${id}`)).body.groups).toEqual([
      { value: 'reviewer', display: 'Reviewer', $ref: `${scimBase}/Groups/reviewer` },
    ]);

    const removed = await scim.patch('/Groups/reviewer', {
      schemas: [patchSchema],
      Operations: [{ op: 'remove', path: `members[value eq "${id}"]` }],
    });
    expect(removed.status).toBe(204);
    expect((await scim.get('/Groups/reviewer')).body).not.toHaveProperty('members');

    const smith = (
      await scim.get(`/Users?filter=${encodeURIComponent('userName eq "jsmith@example.com"')}`)
    ).body.Resources[0].id;
    const replaced = await scim.patch('/Groups/reviewer', {
      schemas: [patchSchema],
      Operations: [
        { op: 'add', path: 'members', value: [member(id)] },
        { op: 'replace', path: 'members', value: [member(smith)] },
      ],
    });
    expect(replaced.status).toBe(204);
    const after = (await scim.get('/Groups/reviewer')).body.members as Array<{ value: string }>;
    expect(after.map((m) => m.value)).toEqual([smith]);

    const emptied = await scim.patch('/Groups/reviewer', {
      schemas: [patchSchema],
      Operations: [{ op: 'remove', path: 'members' }],
    });
    expect(emptied.status).toBe(204);
    expect((await scim.get('/Groups/reviewer')).body).not.toHaveProperty('members');
  });

  it('§3.6: DELETE /Users/{id} answers 204, and she is then 404', async () => {
    const deleted = await scim.delete(`/Users/${id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.raw.body).toBe('');
    expectScimError(await scim.get(`/Users/${id}`), 404);
    expectScimError(await scim.delete(`/Users/${id}`), 404);
  });
});
