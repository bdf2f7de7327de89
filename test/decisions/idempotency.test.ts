import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiOf } from '../helpers/api.js';
import { expectErrorShape, json, startTestApp, subjectIdOf, type TestApp } from '../helpers/app.js';
import { publish, type SeededTenant, seedTemplate, seedTenant, unique } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';

describe.each(stores)('Idempotency-Key on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let b: SeededTenant;
  let api: ReturnType<typeof apiOf>;
  let versionId: string;

  beforeAll(async () => {
    t = await startTestApp(store);
    a = await seedTenant(t.db);
    b = await seedTenant(t.db);
    api = apiOf(t.app, a.headers);
    const code = await seedTemplate(t.db, a.tenant.id);
    versionId = (await publish(t.db, a.tenant.id, code)).consent_version_id;
  });
  afterAll(async () => {
    await t.close();
  });

  /** The customer's decisions in every tenant (a decision needs its customer's subject). */
  async function countFor(customer: string): Promise<number> {
    let count = 0;
    for (const tenantId of [a.tenant.id, b.tenant.id]) {
      const subjectId = await subjectIdOf(t, tenantId, customer);
      if (subjectId === undefined) continue;
      const rows = await t.db
        .selectFrom('decisions')
        .select('id')
        .where('tenant_id', '=', tenantId)
        .where('subject_id', '=', subjectId)
        .execute();
      count += rows.length;
    }
    return count;
  }

  it('a retry with the same key, customer and body answers the first response and stores nothing', async () => {
    const customer = unique('c');
    const key = { 'idempotency-key': unique('key') };
    const first = await api.decide(customer, versionId, 'given', key);
    expect(first.statusCode).toBe(201);
    const retry = await api.decide(customer, versionId, 'given', key);
    expect(retry.statusCode).toBe(201);
    expect(retry.body).toBe(first.body);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(await countFor(customer)).toBe(1);
  });

  it('compares bodies as parsed JSON: the same fields in another order and spacing replay', async () => {
    const customer = unique('c');
    const key = unique('key');
    const first = await api.decide(customer, versionId, 'given', { 'idempotency-key': key });
    const retry = await t.app.inject({
      method: 'POST',
      url: `/api/v1/customers/${customer}/consents/decisions`,
      headers: { ...a.headers, 'idempotency-key': key, 'content-type': 'application/json' },
      payload: `{ "decision" : "given",\n "consent_version_id": "${versionId}" }`,
    });
    expect(retry.statusCode).toBe(201);
    expect(json(retry)).toEqual(json(first));
    expect(await countFor(customer)).toBe(1);
  });

  it('a refused decision replays its refusal, status included', async () => {
    const customer = unique('c');
    const key = { 'idempotency-key': unique('key') };
    const first = await api.decide(customer, versionId, 'withdraw', key);
    expect(first.statusCode).toBe(409);
    // The customer gives consent meanwhile; the retried withdraw still answers the first 409.
    await api.decide(customer, versionId, 'given');
    const retry = await api.decide(customer, versionId, 'withdraw', key);
    expect(retry.statusCode).toBe(409);
    expect(expectErrorShape(retry)).toEqual({ code: '1005', message: 'Nothing to withdraw.' });
  });

  it('the same key with another body answers 422 1010', async () => {
    const customer = unique('c');
    const key = { 'idempotency-key': unique('key') };
    await api.decide(customer, versionId, 'given', key);
    const response = await api.decide(customer, versionId, 'reject', key);
    expect(response.statusCode).toBe(422);
    expect(expectErrorShape(response)).toEqual({
      code: '1010',
      message: 'Idempotency key reused with a different request.',
    });
    expect(await countFor(customer)).toBe(1);
  });

  it('the same key with another customer answers 422 1010', async () => {
    const key = { 'idempotency-key': unique('key') };
    await api.decide(unique('c'), versionId, 'given', key);
    const other = unique('c');
    const response = await api.decide(other, versionId, 'given', key);
    expect(response.statusCode).toBe(422);
    expect(expectErrorShape(response).code).toBe('1010');
    expect(await countFor(other)).toBe(0);
  });

  it('keys are scoped to the tenant: another tenant may use the same key', async () => {
    const codeB = await seedTemplate(t.db, b.tenant.id);
    const vB = await publish(t.db, b.tenant.id, codeB);
    const key = { 'idempotency-key': unique('key') };
    const customer = unique('c');
    expect((await api.decide(customer, versionId, 'given', key)).statusCode).toBe(201);
    const other = await apiOf(t.app, b.headers).decide(
      customer,
      vB.consent_version_id,
      'given',
      key,
    );
    expect(other.statusCode).toBe(201);
    expect(json(other).data.consent_version_id).toBe(vB.consent_version_id);
  });

  it('after 24 hours the key is forgotten: the request is processed anew', async () => {
    const customer = unique('c');
    const keyValue = unique('key');
    const key = { 'idempotency-key': keyValue };
    const first = json(await api.decide(customer, versionId, 'given', key)).data;
    await t.db
      .updateTable('idempotency_keys')
      .set({ created_at: new Date(Date.now() - 24 * 3600 * 1000 - 1000).toISOString() })
      .where('tenant_id', '=', a.tenant.id)
      .where('key', '=', keyValue)
      .execute();
    const again = await api.decide(customer, versionId, 'given', key);
    expect(again.statusCode).toBe(201);
    expect(json(again).data.decision_id).not.toBe(first.decision_id);
    expect(await countFor(customer)).toBe(2);
    // And the fresh response is what the key now replays.
    const replay = await api.decide(customer, versionId, 'given', key);
    expect(json(replay).data.decision_id).toBe(json(again).data.decision_id);
  });

  it('two requests with the same key at the same moment store once', async () => {
    const customer = unique('c');
    const key = { 'idempotency-key': unique('key') };
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => api.decide(customer, versionId, 'given', key)),
    );
    const ids = new Set(responses.map((r) => json(r).data.decision_id));
    expect(responses.every((r) => r.statusCode === 201)).toBe(true);
    expect(ids.size).toBe(1);
    expect(await countFor(customer)).toBe(1);
  });

  it('without a key, identical requests are separate decisions', async () => {
    const customer = unique('c');
    await api.decide(customer, versionId, 'given');
    await api.decide(customer, versionId, 'given');
    expect(await countFor(customer)).toBe(2);
  });
});
