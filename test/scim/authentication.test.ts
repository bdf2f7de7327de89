/**
 * Who may call `/scim/v2`: a request without a token, with a malformed, unknown or revoked one,
 * or with a token of a disabled tenant is `401` in SCIM's format, refused before its body is
 * read; failed tokens count against the address as failed API keys do.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disableTenant } from '../../src/accounts/index.js';
import { operator, signedIn, startBackofficeApp } from '../backoffice/support.js';
import type { TestApp } from '../helpers/app.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { storeAgnostic, stores } from '../helpers/stores.js';
import { expectScimError, makeScimToken, scimClient } from './support.js';

const tokenPattern = /scim_[A-Za-z0-9_-]{43}/;

describe.each(stores)('SCIM tokens at the door on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;

  beforeAll(async () => {
    t = await startBackofficeApp(store);
    a = await seedTenant(t.db);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('no token, a malformed one, an unknown one, a revoked one: 401 in SCIM format, before the body is read', async () => {
    const admin = await signedIn(t.app, a.tenant.email);
    const made = await admin.submit('/backoffice/settings/scim', '/backoffice/settings/scim', {
      name: 'to revoke',
    });
    const token =
      tokenPattern.exec((await admin.get(String(made.headers.location))).body)?.[0] ?? '';
    expect((await scimClient(t.app, token).get('/Users')).status).toBe(200);
    const row = await t.db
      .selectFrom('scim_tokens')
      .select('id')
      .where('prefix', '=', token.slice(0, 13))
      .executeTakeFirstOrThrow();
    await admin.get(`/backoffice/settings/scim/${row.id}/revoke`);
    expect((await admin.post(`/backoffice/settings/scim/${row.id}/revoke`, {})).statusCode).toBe(
      303,
    );

    const unknown = `scim_${'A'.repeat(43)}`;
    for (const presented of [undefined, 'not-a-token', unknown, token]) {
      const client = scimClient(t.app, presented);
      for (const answer of [
        await client.get('/Users'),
        await client.get('/ServiceProviderConfig'),
        await client.post('/Users', '{"userName": '),
      ]) {
        expectScimError(answer, 401);
        expect(answer.headers['www-authenticate']).toBe('Bearer realm="scim"');
      }
    }
    const basic = await t.app.inject({
      method: 'GET',
      url: '/scim/v2/Users',
      headers: { authorization: `Basic ${Buffer.from(`x:${token}`).toString('base64')}` },
    });
    expect(basic.statusCode).toBe(401);
  });

  it("a disabled tenant's token is refused", async () => {
    const b = await seedTenant(t.db);
    const client = scimClient(t.app, (await makeScimToken(t.db, b.tenant.id)).token);
    expect((await client.get('/Users')).status).toBe(200);
    await t.db.transaction().execute((trx) =>
      disableTenant(trx, b.tenant.id, {
        tenantId: null,
        actorKind: 'operator',
        actor: operator.email,
        ip: '127.0.0.1',
        userAgent: null,
      }),
    );
    expectScimError(await client.get('/Users'), 401);
  });
});

describe.each(storeAgnostic)('failed SCIM tokens and the address throttle on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;

  beforeAll(async () => {
    t = await startBackofficeApp(store, { AUTH_FAILURES_PER_MINUTE: '2' });
    a = await seedTenant(t.db);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('past the failures an address may make in a minute, even a good token is 429 with Retry-After', async () => {
    const good = scimClient(t.app, (await makeScimToken(t.db, a.tenant.id)).token);
    expect((await good.get('/Users')).status).toBe(200);
    const guesser = scimClient(t.app, `scim_${'B'.repeat(43)}`);
    expectScimError(await guesser.get('/Users'), 401);
    expectScimError(await guesser.get('/Users'), 401);
    const blocked = await good.get('/Users');
    expectScimError(blocked, 429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
  });
});
