import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../src/api-keys/service.js';
import { sha256Hex } from '../../src/platform/hashing.js';
import { createTemplate } from '../../src/templates/service.js';
import { withinPublishBound } from '../helpers/api.js';
import { expectErrorShape, json, startTestApp, type TestApp } from '../helpers/app.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';

describe.each(stores)('API keys and tenants on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let b: SeededTenant;
  let code: string;
  let versionId: string;

  beforeAll(async () => {
    t = await startTestApp(store);
    a = await seedTenant(t.db);
    b = await seedTenant(t.db);
    code = await seedTemplate(t.db, a.tenant.id);
    versionId = (await publish(t.db, a.tenant.id, code)).consent_version_id;
  });
  afterAll(async () => {
    await t.close();
  });

  const latestUrl = () => `/api/v1/consent-templates/${code}/latest`;

  function expectUnauthorized(response: Awaited<ReturnType<TestApp['app']['inject']>>) {
    expect(response.statusCode).toBe(401);
    expect(expectErrorShape(response)).toEqual({ code: '1002', message: 'Unauthorized.' });
  }

  it('when the key header is missing, answers 401 1002', async () => {
    expectUnauthorized(await t.app.inject({ method: 'GET', url: latestUrl() }));
  });

  it.each([
    ['empty', ''],
    ['not a key at all', 'secret'],
    ['well-formed but unknown', `csk_000000000000_${'A'.repeat(43)}`],
  ])('when the key is %s, answers 401 1002', async (_label, key) => {
    const response = await t.app.inject({
      method: 'GET',
      url: latestUrl(),
      headers: { 'x-system-api-key': key },
    });
    expectUnauthorized(response);
  });

  it('when a real key has one character changed, answers 401 1002', async () => {
    const key = a.apiKey.key;
    const last = key.at(-1) === 'A' ? 'B' : 'A';
    const response = await t.app.inject({
      method: 'GET',
      url: latestUrl(),
      headers: { 'x-system-api-key': key.slice(0, -1) + last },
    });
    expectUnauthorized(response);
  });

  it('right after the real key was accepted, a changed, cut or longer key is still refused', async () => {
    const key = a.apiKey.key;
    const get = (presented: string) =>
      t.app.inject({ method: 'GET', url: latestUrl(), headers: { 'x-system-api-key': presented } });
    expect((await get(key)).statusCode).toBe(200);
    const last = key.at(-1) === 'A' ? 'B' : 'A';
    for (const presented of [key.slice(0, -1) + last, key.slice(0, -1), `${key}A`]) {
      expectUnauthorized(await get(presented));
    }
    expect((await get(key)).statusCode).toBe(200);
  });

  it('when the key is valid, answers and records its last use', async () => {
    const response = await t.app.inject({ method: 'GET', url: latestUrl(), headers: a.headers });
    expect(response.statusCode).toBe(200);
    // The use is written beside the request, not before its answer.
    const lastUsed = async () =>
      (
        await t.db
          .selectFrom('api_keys')
          .select('last_used_at')
          .where('id', '=', a.apiKey.id)
          .executeTakeFirstOrThrow()
      ).last_used_at;
    const deadline = performance.now() + budget(5_000);
    let seen = await lastUsed();
    while (seen === null && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      seen = await lastUsed();
    }
    expect(seen).not.toBeNull();
    expect(Date.now() - Date.parse(seen ?? '')).toBeLessThan(60_000);
  });

  it('stores only a SHA-256 of the key, with its visible prefix', async () => {
    const row = await t.db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', a.apiKey.id)
      .executeTakeFirstOrThrow();
    expect(a.apiKey.key.startsWith(a.apiKey.prefix)).toBe(true);
    expect(row.prefix).toBe(a.apiKey.prefix);
    expect(row.key_hash).toBe(sha256Hex(a.apiKey.key));
    expect(JSON.stringify(row)).not.toContain(a.apiKey.key);
    expect(row).toMatchObject({ name: 'test key', revoked_at: null });
    expect(row.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('when the key is revoked, answers 401 1002 to every request starting 1 second later', async () => {
    const key = await createApiKey(t.db, a.tenant.id, { name: 'to revoke' });
    const headers = { 'x-system-api-key': key.key };
    expect((await t.app.inject({ method: 'GET', url: latestUrl(), headers })).statusCode).toBe(200);
    const revoked = await t.db
      .transaction()
      .execute((trx) => revokeApiKey(trx, a.tenant.id, key.id));
    expect(revoked.id).toBe(key.id);
    expect(Date.parse(revoked.revoked_at)).not.toBeNaN();
    // Key records are cached for under a second (the bound for a revocation to take effect).
    const refused = await withinPublishBound(
      () => t.app.inject({ method: 'GET', url: latestUrl(), headers }),
      (response) => response.statusCode !== 200,
    );
    expectUnauthorized(refused);
    // Revoking again keeps the first revocation time.
    expect(
      await t.db.transaction().execute((trx) => revokeApiKey(trx, a.tenant.id, key.id)),
    ).toEqual(revoked);
  });

  it("when a tenant revokes another tenant's key, answers 404 and the key keeps working", async () => {
    await expect(
      t.db.transaction().execute((trx) => revokeApiKey(trx, b.tenant.id, a.apiKey.id)),
    ).rejects.toMatchObject({
      status: 404,
      code: '1004',
    });
    const response = await t.app.inject({ method: 'GET', url: latestUrl(), headers: a.headers });
    expect(response.statusCode).toBe(200);
  });

  it('when the tenant is disabled, its keys are refused within 1 second', async () => {
    const c = await seedTenant(t.db);
    const cCode = await seedTemplate(t.db, c.tenant.id);
    await publish(t.db, c.tenant.id, cCode);
    const url = `/api/v1/consent-templates/${cCode}/latest`;
    expect((await t.app.inject({ method: 'GET', url, headers: c.headers })).statusCode).toBe(200);
    await t.db
      .updateTable('tenants')
      .set({ disabled_at: new Date().toISOString() })
      .where('id', '=', c.tenant.id)
      .execute();
    const refused = await withinPublishBound(
      () => t.app.inject({ method: 'GET', url, headers: c.headers }),
      (response) => response.statusCode !== 200,
    );
    expectUnauthorized(refused);
  });

  it('when another tenant asks for the template, answers 404 as if it did not exist', async () => {
    const response = await t.app.inject({ method: 'GET', url: latestUrl(), headers: b.headers });
    expect(response.statusCode).toBe(404);
    expect(expectErrorShape(response)).toEqual({ code: '1004', message: 'Template not found.' });
  });

  it("when another tenant submits a decision on this tenant's version, answers 404 1004", async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/v1/customers/cust-1/consents/decisions',
      headers: b.headers,
      payload: { consent_version_id: versionId, decision: 'given' },
    });
    expect(response.statusCode).toBe(404);
    expect(expectErrorShape(response)).toEqual({
      code: '1004',
      message: 'Consent version not found.',
    });
  });

  it('the same template code and customer id in two tenants are unrelated', async () => {
    const shared = `shared_${Date.now()}`;
    await t.db
      .transaction()
      .execute((trx) => createTemplate(trx, a.tenant.id, { code: shared, name: 'A' }));
    await t.db
      .transaction()
      .execute((trx) => createTemplate(trx, b.tenant.id, { code: shared, name: 'B' }));
    const va = await publish(t.db, a.tenant.id, shared, { content_html: '<p>A text</p>' });
    const vb = await publish(t.db, b.tenant.id, shared, { content_html: '<p>B text</p>' });
    const customer = 'same-customer@example.com';
    const given = await t.app.inject({
      method: 'POST',
      url: `/api/v1/customers/${customer}/consents/decisions`,
      headers: a.headers,
      payload: { consent_version_id: va.consent_version_id, decision: 'given' },
    });
    expect(given.statusCode).toBe(201);
    const pendingUrl = `/api/v1/customers/${customer}/consents/templates/${shared}/pending`;
    const pendingA = json(
      await t.app.inject({ method: 'GET', url: pendingUrl, headers: a.headers }),
    );
    const pendingB = json(
      await t.app.inject({ method: 'GET', url: pendingUrl, headers: b.headers }),
    );
    expect(pendingA.data.accepted).toBe(true);
    expect(pendingA.data.consent_version.content_html).toBe('<p>A text</p>');
    expect(pendingB.data.accepted).toBe(false);
    expect(pendingB.data.consent_version.consent_version_id).toBe(vb.consent_version_id);
    expect(pendingB.data.consent_version.content_html).toBe('<p>B text</p>');
  });
});
