/**
 * The tenant's own channels through the API and the service, on both stores: a channel added is
 * taken by the PUT and listed by the GET after the five (by code), another tenant's is unknown
 * to it (`404 1004`), and adding one checks its code and name and is audited.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenantChannel, isTenantChannel, tenantChannels } from '../../src/channels/index.js';
import { AppError } from '../../src/platform/errors.js';
import { createProduct } from '../../src/products/index.js';
import { expectErrorShape, json, startTestApp, type TestApp } from '../helpers/app.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';

const actor = { actorKind: 'operator', actor: 'test', ip: 'local', userAgent: null } as const;

describe.each(stores)("the tenant's own channels on $name", (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let b: SeededTenant;

  const addChannel = (tenant: SeededTenant, input: unknown) =>
    t.db
      .transaction()
      .execute((trx) =>
        createTenantChannel(trx, { ...actor, tenantId: tenant.tenant.id }, tenant.tenant.id, input),
      );

  beforeAll(async () => {
    t = await startTestApp(store, { LOG_INTEGRATE_INTERVAL_MS: '60000' });
    a = await seedTenant(t.db);
    b = await seedTenant(t.db);
    for (const tenant of [a, b]) {
      await t.db.transaction().execute((trx) =>
        createProduct(trx, { ...actor, tenantId: tenant.tenant.id }, tenant.tenant.id, {
          code: 'savings',
          name: 'Savings',
        }),
      );
    }
    await addChannel(a, { code: 'whatsapp', name: 'WhatsApp' });
    await addChannel(a, { code: 'line', name: 'LINE' });
    await addChannel(b, { code: 'fax', name: 'Fax' });
  });
  afterAll(async () => {
    await t.close();
  });

  const put = (customer: string, channel: string, blocked: boolean, tenant = a) =>
    t.app.inject({
      method: 'PUT',
      url: `/api/v1/customers/${customer}/channels/savings/${channel}`,
      headers: { ...tenant.headers, 'content-type': 'application/json' },
      payload: JSON.stringify({ blocked }),
    });
  const list = async (customer: string, tenant = a) => {
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/v1/customers/${customer}/channels`,
      headers: tenant.headers,
    });
    expect(response.statusCode, response.body).toBe(200);
    return json(response).data as { channel: string; blocked: boolean }[];
  };

  it('the GET lists the five, then the own channels by code', async () => {
    expect((await list('pat')).map((s) => s.channel)).toEqual([
      'email',
      'sms',
      'push',
      'phone',
      'post',
      'line',
      'whatsapp',
    ]);
    expect((await list('pat', b)).map((s) => s.channel)).toEqual([
      'email',
      'sms',
      'push',
      'phone',
      'post',
      'fax',
    ]);
  });

  it('the PUT blocks and allows an own channel like the five', async () => {
    const blocked = await put('quinn', 'whatsapp', true);
    expect(blocked.statusCode, blocked.body).toBe(201);
    expect(json(blocked).data).toMatchObject({
      product_code: 'savings',
      channel: 'whatsapp',
      blocked: true,
    });
    expect((await list('quinn')).filter((s) => s.blocked).map((s) => s.channel)).toEqual([
      'whatsapp',
    ]);
    expect((await put('quinn', 'whatsapp', true)).statusCode).toBe(200);
    expect((await put('quinn', 'whatsapp', false)).statusCode).toBe(201);
  });

  it("another tenant's own channel, and a channel nobody has, are 404 1004", async () => {
    for (const response of [
      await put('rita', 'fax', true),
      await put('rita', 'whatsapp', true, b),
      await put('rita', 'telegram', true),
    ]) {
      expect(response.statusCode, response.body).toBe(404);
      expect(expectErrorShape(response)).toEqual({ code: '1004', message: 'No such channel.' });
    }
  });

  it('isTenantChannel answers for the five, the own, and nothing else', async () => {
    expect(await isTenantChannel(t.db, a.tenant.id, 'sms')).toBe(true);
    expect(await isTenantChannel(t.db, a.tenant.id, 'line')).toBe(true);
    expect(await isTenantChannel(t.db, a.tenant.id, 'fax')).toBe(false);
    expect(await isTenantChannel(t.db, b.tenant.id, 'fax')).toBe(true);
    expect((await tenantChannels(t.db, a.tenant.id)).map((c) => [c.code, c.builtIn])).toEqual([
      ['email', true],
      ['sms', true],
      ['push', true],
      ['phone', true],
      ['post', true],
      ['line', false],
      ['whatsapp', false],
    ]);
  });

  it('adding refuses one of the five, a code that is not a lowercase slug, no name, and a code taken', async () => {
    const refusal = async (input: unknown) => {
      try {
        await addChannel(a, input);
      } catch (error) {
        if (error instanceof AppError) return { status: error.status, details: error.details };
        throw error;
      }
      throw new Error('added');
    };
    expect(await refusal({ code: 'email', name: 'Mail' })).toEqual({
      status: 400,
      details: [{ field: 'code', issue: '"email" is a channel every tenant has' }],
    });
    for (const code of ['WhatsApp', 'we chat', '-x', 'x_y', 'a'.repeat(65)]) {
      expect(await refusal({ code, name: 'X' })).toMatchObject({
        status: 400,
        details: [{ field: 'code' }],
      });
    }
    expect(await refusal({ code: 'viber', name: '' })).toMatchObject({
      status: 400,
      details: [{ field: 'name' }],
    });
    expect(await refusal({ code: 'line', name: 'Again' })).toMatchObject({ status: 409 });
    const audited = await t.db
      .selectFrom('audit_log')
      .select(['action', 'target', 'details'])
      .where('tenant_id', '=', a.tenant.id)
      .where('action', 'like', 'channel.%')
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    expect(audited).toEqual([
      { action: 'channel.created', target: 'whatsapp', details: '{"name":"WhatsApp"}' },
      { action: 'channel.created', target: 'line', details: '{"name":"LINE"}' },
    ]);
  });
});
