/**
 * The protocol around the resources (RFC 7644): filters that are refused, paging, bodies that
 * are not JSON or not SCIM, values and paths that are refused, unknown paths and methods, and the
 * discovery documents (RFC 7643 sections 5 to 7). Every error is in SCIM's format, never a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import {
  expectScimError,
  listSchema,
  makeScimToken,
  patchSchema,
  type ScimClient,
  scimBase,
  scimClient,
} from './support.js';

describe.each(stores)('the SCIM protocol on $name', (store) => {
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

  it.each([
    ['userName gt "a"', 'an ordering operator'],
    ['title pr', 'an attribute not kept'],
    ['userName eq "unclosed', 'an unclosed string'],
    ['userName eq', 'no value'],
    ['userName eq "a" and', 'a dangling and'],
    ['(userName eq "a"', 'an unclosed bracket'],
    ['userName eq "a" userName', 'something after the end'],
    [
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department eq "x"',
      "another schema's attribute",
    ],
  ])('the filter %s (%s) is 400 invalidFilter', async (filter) => {
    expectScimError(
      await scim.get(`/Users?filter=${encodeURIComponent(filter)}`),
      400,
      'invalidFilter',
    );
  });

  it('paging: startIndex counts from 1, count bounds the page, totalResults counts all', async () => {
    for (const name of ['p1', 'p2', 'p3']) {
      expect((await scim.post('/Users', { userName: `${name}@paging.example` })).status).toBe(201);
    }
    const all = await scim.get(
      `/Users?filter=${encodeURIComponent('userName ew "@paging.example"')}`,
    );
    expect(all.body.totalResults).toBe(3);
    const page = await scim.get(
      `/Users?filter=${encodeURIComponent('userName ew "@paging.example"')}&startIndex=2&count=1`,
    );
    expect(page.body).toMatchObject({
      schemas: [listSchema],
      totalResults: 3,
      startIndex: 2,
      itemsPerPage: 1,
    });
    expect(page.body.Resources.map((r: { userName: string }) => r.userName)).toEqual([
      'p2@paging.example',
    ]);
    const none = await scim.get('/Users?count=0');
    expect(none.body.itemsPerPage).toBe(0);
    expect(none.body.Resources).toEqual([]);
    expectScimError(await scim.get('/Users?startIndex=two'), 400, 'invalidValue');
  });

  it('bad JSON, a repeated key, a body that is no object and another media type are refused in SCIM format', async () => {
    expectScimError(await scim.post('/Users', '{"userName": '), 400, 'invalidSyntax');
    expectScimError(
      await scim.post('/Users', '{"userName": "a@bank.example", "userName": "b@bank.example"}'),
      400,
      'invalidSyntax',
    );
    expectScimError(await scim.post('/Users', '[]'), 400, 'invalidSyntax');
    expectScimError(
      await scim.patch('/Groups/editor', { Operations: 'add' }),
      400,
      'invalidSyntax',
    );
    expectScimError(
      await scim.patch('/Groups/editor', { schemas: [patchSchema], Operations: [{ op: 'move' }] }),
      400,
      'invalidSyntax',
    );
    expectScimError(await scim.post('/Users', 'userName=a', { 'content-type': 'text/plain' }), 415);
    // The same body as plain application/json is read alike.
    const plain = await scim.post('/Users', JSON.stringify({ userName: 'plain@bank.example' }), {
      'content-type': 'application/json; charset=utf-8',
    });
    expect(plain.status).toBe(201);
  });

  it('values: a userName that is no e-mail, a bad boolean, a remove without a path, a read-only path', async () => {
    const refused = expectScimError(
      await scim.post('/Users', { userName: 'bjensen' }),
      400,
      'invalidValue',
    );
    expect(refused.detail).toContain('e-mail');
    expectScimError(await scim.post('/Users', { name: { givenName: 'No' } }), 400, 'invalidValue');
    expectScimError(
      await scim.post('/Users', { userName: 'yes@bank.example', active: 'yes' }),
      400,
      'invalidValue',
    );
    const made = await scim.post('/Users', { userName: 'paths@bank.example' });
    const path = `/Users/${made.body.id}`;
    expectScimError(
      await scim.patch(path, { schemas: [patchSchema], Operations: [{ op: 'remove' }] }),
      400,
      'noTarget',
    );
    expectScimError(
      await scim.patch(path, {
        schemas: [patchSchema],
        Operations: [{ op: 'replace', path: 'id', value: 'mine' }],
      }),
      400,
      'mutability',
    );
    expectScimError(
      await scim.patch(path, {
        schemas: [patchSchema],
        Operations: [{ op: 'replace', path: 'userName.value', value: 'x' }],
      }),
      400,
      'invalidPath',
    );
    // Attributes of other schemas and those not kept are ignored, not refused.
    const ignored = await scim.patch(path, {
      schemas: [patchSchema],
      Operations: [
        {
          op: 'replace',
          path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department',
          value: 'Risk',
        },
        { op: 'add', path: 'phoneNumbers[type eq "work"].value', value: '+66 2 000 0000' },
      ],
    });
    expect(ignored.status).toBe(200);
  });

  it('unknown paths are 404 and other methods 405, in SCIM format', async () => {
    expectScimError(await scim.get('/Nothing'), 404);
    expectScimError(await scim.get('/Groups/no-such-role'), 404);
    const method = await scim.post('/ServiceProviderConfig', {});
    expectScimError(method, 405);
    expect(method.headers.allow).toBe('GET, HEAD');
  });

  it('discovery: the service provider config, resource types and schemas, as RFC 7643 sections 5-7 ask', async () => {
    const config = await scim.get('/ServiceProviderConfig');
    expect(config.status).toBe(200);
    expect(config.headers['content-type']).toBe('application/scim+json; charset=utf-8');
    expect(config.body).toEqual({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
      patch: { supported: true },
      bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
      filter: { supported: true, maxResults: 200 },
      changePassword: { supported: false },
      sort: { supported: false },
      etag: { supported: false },
      authenticationSchemes: [
        expect.objectContaining({
          type: 'oauthbearertoken',
          primary: true,
          name: expect.any(String),
        }),
      ],
      meta: {
        resourceType: 'ServiceProviderConfig',
        location: `${scimBase}/ServiceProviderConfig`,
      },
    });
    const types = await scim.get('/ResourceTypes');
    expect(types.body).toMatchObject({ schemas: [listSchema], totalResults: 2 });
    expect(types.body.Resources).toEqual([
      expect.objectContaining({
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
        id: 'User',
        name: 'User',
        endpoint: '/Users',
        schema: 'urn:ietf:params:scim:schemas:core:2.0:User',
      }),
      expect.objectContaining({
        id: 'Group',
        name: 'Group',
        endpoint: '/Groups',
        schema: 'urn:ietf:params:scim:schemas:core:2.0:Group',
      }),
    ]);
    expect((await scim.get('/ResourceTypes/User')).body.endpoint).toBe('/Users');
    const schemas = await scim.get('/Schemas');
    expect(schemas.body.Resources.map((s: { id: string }) => s.id)).toEqual([
      'urn:ietf:params:scim:schemas:core:2.0:User',
      'urn:ietf:params:scim:schemas:core:2.0:Group',
    ]);
    const user = await scim.get('/Schemas/urn:ietf:params:scim:schemas:core:2.0:User');
    const attributes = user.body.attributes as Array<{
      name: string;
      required: boolean;
      uniqueness: string;
    }>;
    expect(attributes.map((x) => x.name)).toEqual([
      'userName',
      'name',
      'displayName',
      'emails',
      'active',
      'groups',
    ]);
    expect(attributes[0]).toMatchObject({ name: 'userName', required: true, uniqueness: 'server' });
    expectScimError(await scim.get('/Schemas/urn:example:nothing'), 404);
  });
});
