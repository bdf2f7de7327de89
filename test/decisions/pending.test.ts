import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiOf, withinPublishBound } from '../helpers/api.js';
import { expectErrorShape, json, startTestApp, type TestApp } from '../helpers/app.js';
import { publish, type SeededTenant, seedTemplate, seedTenant, unique } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';

describe.each(stores)('GET .../pending on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let api: ReturnType<typeof apiOf>;

  beforeAll(async () => {
    t = await startTestApp(store);
    a = await seedTenant(t.db);
    api = apiOf(t.app, a.headers);
  });
  afterAll(async () => {
    await t.close();
  });

  it('for a customer never seen, answers accepted false with the latest version and no decision', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const v = await publish(t.db, a.tenant.id, code);
    const response = await api.pending(unique('new'), code);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-store');
    const body = json(response);
    expect(Object.keys(body)).toEqual(['data']);
    expect(body.data).toEqual({
      accepted: false,
      consent_version: v,
      decision: null,
      decided_at: null,
    });
  });

  it.each(['given', 'reject'])(
    'after a %s on the latest version, answers accepted true with that decision and its time',
    async (decision) => {
      const code = await seedTemplate(t.db, a.tenant.id);
      const v = await publish(t.db, a.tenant.id, code);
      const customer = unique('c');
      const recorded = json(await api.decide(customer, v.consent_version_id, decision)).data;
      const body = json(await api.pending(customer, code));
      expect(body.data).toEqual({
        accepted: true,
        consent_version: v,
        decision,
        decided_at: recorded.decided_at,
      });
    },
  );

  it('when a new version is released, the customer is pending again (accepted false)', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const v1 = await publish(t.db, a.tenant.id, code);
    const customer = unique('c');
    await api.decide(customer, v1.consent_version_id, 'given');
    expect(json(await api.pending(customer, code)).data.accepted).toBe(true);
    const v2 = await publish(t.db, a.tenant.id, code);
    const body = await withinPublishBound(
      async () => json(await api.pending(customer, code)).data,
      (data) => data.consent_version.consent_version_id === v2.consent_version_id,
    );
    expect(body).toEqual({
      accepted: false,
      consent_version: v2,
      decision: null,
      decided_at: null,
    });
    await api.decide(customer, v2.consent_version_id, 'reject');
    expect(json(await api.pending(customer, code)).data).toMatchObject({
      accepted: true,
      decision: 'reject',
    });
  });

  it('a decision on a superseded version is recorded but pending keeps answering for the latest', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const v1 = await publish(t.db, a.tenant.id, code);
    const v2 = await publish(t.db, a.tenant.id, code);
    const customer = unique('c');
    const old = await api.decide(customer, v1.consent_version_id, 'given');
    expect(old.statusCode).toBe(201);
    expect(json(old).data).toMatchObject({ version: 1, consent_version_id: v1.consent_version_id });
    const body = json(await api.pending(customer, code)).data;
    expect(body.accepted).toBe(false);
    expect(body.consent_version.consent_version_id).toBe(v2.consent_version_id);
  });

  it('answers the most recent decision on the latest version', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const v = await publish(t.db, a.tenant.id, code);
    const customer = unique('c');
    await api.decide(customer, v.consent_version_id, 'given');
    await api.decide(customer, v.consent_version_id, 'reject');
    expect(json(await api.pending(customer, code)).data.decision).toBe('reject');
    const withdrawn = json(await api.decide(customer, v.consent_version_id, 'given')).data;
    await api.decide(customer, v.consent_version_id, 'withdraw');
    const body = json(await api.pending(customer, code)).data;
    expect(body.decision).toBe('withdraw');
    expect(body.accepted).toBe(true);
    expect(body.decided_at >= withdrawn.decided_at).toBe(true);
  });

  it('when the template is unknown or has no published version, answers 404 1004', async () => {
    const unknown = await api.pending('someone', 'unknown_template');
    expect(unknown.statusCode).toBe(404);
    expect(expectErrorShape(unknown)).toEqual({ code: '1004', message: 'Template not found.' });
    const draftOnly = await seedTemplate(t.db, a.tenant.id);
    const empty = await api.pending('someone', draftOnly);
    expect(empty.statusCode).toBe(404);
    expect(expectErrorShape(empty).code).toBe('1004');
  });
});
