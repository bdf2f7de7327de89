import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorShape, json, startTestApp, type TestApp } from '../helpers/app.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { storeAgnostic } from '../helpers/stores.js';

describe.each(storeAgnostic)('paths the router cannot parse on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let code: string;

  beforeAll(async () => {
    t = await startTestApp(store);
    a = await seedTenant(t.db);
    code = await seedTemplate(t.db, a.tenant.id);
    await publish(t.db, a.tenant.id, code);
  });
  afterAll(async () => {
    await t.close();
  });

  const pendingUrl = (customer: string) =>
    `/api/v1/customers/${customer}/consents/templates/${code}/pending`;

  it('a bad percent-encoding under /api/v1 without a key answers 401 1002 first', async () => {
    const response = await t.app.inject({ method: 'GET', url: pendingUrl('%zz') });
    expect(response.statusCode).toBe(401);
    expect(expectErrorShape(response).code).toBe('1002');
    expect(response.headers['x-request-id']).toBeTruthy();
  });

  it('a bad percent-encoding with a valid key answers 400 1001', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: pendingUrl('%zz'),
      headers: a.headers,
    });
    expect(response.statusCode).toBe(400);
    expect(expectErrorShape(response).code).toBe('1001');
  });

  it('a customer_id of the full 128 characters is accepted', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: pendingUrl('c'.repeat(128)),
      headers: a.headers,
    });
    expect(response.statusCode).toBe(200);
    expect(json(response).data.accepted).toBe(false);
  });

  it.each([129, 300])('a customer_id of %i characters answers 400 1001', async (length) => {
    const response = await t.app.inject({
      method: 'GET',
      url: pendingUrl('c'.repeat(length)),
      headers: a.headers,
    });
    expect(response.statusCode).toBe(400);
    expect(expectErrorShape(response).code).toBe('1001');
  });
});
