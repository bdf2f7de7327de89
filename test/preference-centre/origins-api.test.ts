/**
 * The preference centre's allowed origins through the API, on both stores: a tenant's backend
 * reads and sets them with its API key, with the back-office's and the command line's checks
 * (made canonical, a value that is no origin refused as `400 1001`), the other settings kept,
 * and each change audited as made by that key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPreferenceCentre, savePreferenceCentre } from '../../src/preference-centre/index.js';
import { expectErrorShape, json, startTestApp, type TestApp } from '../helpers/app.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';

const path = '/api/v1/preference-centre/allowed-origins';

describe.each(stores)('the allowed origins through the API on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let b: SeededTenant;

  const read = (s: SeededTenant) => t.app.inject({ method: 'GET', url: path, headers: s.headers });
  const set = (s: SeededTenant, body: unknown) =>
    t.app.inject({
      method: 'PUT',
      url: path,
      headers: { ...s.headers, 'user-agent': 'shop-backend/1.0' },
      payload: body as Record<string, unknown>,
    });
  const audited = (s: SeededTenant) =>
    t.db
      .selectFrom('audit_log')
      .select(['actor_kind', 'actor', 'actor_name', 'details', 'user_agent'])
      .where('tenant_id', '=', s.tenant.id)
      .where('action', '=', 'preference_centre.changed')
      .orderBy('created_at')
      .execute();

  beforeAll(async () => {
    t = await startTestApp(store);
    a = await seedTenant(t.db);
    b = await seedTenant(t.db);
    await t.db.transaction().execute((trx) =>
      savePreferenceCentre(
        trx,
        { tenantId: a.tenant.id, actorKind: 'tenant', actor: 'test', ip: 'local', userAgent: null },
        a.tenant.id,
        {
          display_name: 'Acme Bank',
          logo_url: null,
          accent_colour: '#1f4e79',
          header_colour: null,
          allowed_origins: [],
        },
      ),
    );
  });
  afterAll(async () => {
    await t?.close();
  });

  it("GET answers the tenant's origins: none before any is set", async () => {
    const response = await read(a);
    expect(response.statusCode).toBe(200);
    expect(json(response)).toEqual({ data: { allowed_origins: [] } });
  });

  it('PUT sets them (canonical, once each), GET reads them back, the other settings kept, audited as the key', async () => {
    const response = await set(a, {
      allowed_origins: ['https://shop.example/', 'https://APP.example', 'https://shop.example'],
    });
    expect(response.statusCode).toBe(200);
    const origins = ['https://shop.example', 'https://app.example'];
    expect(json(response)).toEqual({ data: { allowed_origins: origins } });
    expect(json(await read(a))).toEqual({ data: { allowed_origins: origins } });
    expect(await getPreferenceCentre(t.db, a.tenant.id)).toMatchObject({
      displayName: 'Acme Bank',
      accentColour: '#1f4e79',
      allowedOrigins: origins,
    });
    // Another tenant's are its own.
    expect(json(await read(b))).toEqual({ data: { allowed_origins: [] } });

    const entries = (await audited(a)).slice(1);
    expect(entries).toEqual([
      {
        actor_kind: 'tenant',
        actor: `API key ${a.apiKey.prefix}`,
        actor_name: a.apiKey.name,
        details: expect.any(String),
        user_agent: 'shop-backend/1.0',
      },
    ]);
    expect(JSON.parse(entries[0]?.details ?? '{}')).toEqual({
      allowedOrigins: { from: [], to: origins },
    });
  });

  it('a value that is no origin is 400 1001 naming body.allowed_origins, and changes nothing', async () => {
    const before = (await audited(a)).length;
    const response = await set(a, { allowed_origins: ['https://ok.example', 'shop.example'] });
    expect(response.statusCode).toBe(400);
    expect(expectErrorShape(response).code).toBe('1001');
    expect(json(response).details).toEqual([
      {
        field: 'body.allowed_origins',
        issue: '"shop.example" is not an origin: https://host[:port], or http:// on this machine',
      },
    ]);
    expect(json(await read(a))).toEqual({
      data: { allowed_origins: ['https://shop.example', 'https://app.example'] },
    });
    expect(await audited(a)).toHaveLength(before);
  });

  it('a body that is not a list of origins is 400 1001 from validation', async () => {
    for (const body of [
      {},
      { allowed_origins: 'https://shop.example' },
      { allowed_origins: [], x: 1 },
    ]) {
      const response = await set(a, body);
      expect(response.statusCode).toBe(400);
      expect(expectErrorShape(response).code).toBe('1001');
    }
  });

  it('an empty list clears them; the same list again records nothing more', async () => {
    const before = (await audited(a)).length;
    expect(json(await set(a, { allowed_origins: [] }))).toEqual({ data: { allowed_origins: [] } });
    expect(json(await set(a, { allowed_origins: [] }))).toEqual({ data: { allowed_origins: [] } });
    expect(await audited(a)).toHaveLength(before + 1);
  });

  it('without a valid key, 401 1002', async () => {
    const response = await t.app.inject({ method: 'GET', url: path });
    expect(response.statusCode).toBe(401);
    expect(expectErrorShape(response).code).toBe('1002');
  });
});
