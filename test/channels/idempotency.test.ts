/**
 * `Idempotency-Key` on a channel change, on both stores: a retry within 24 hours answers the
 * first response again (status and body) and records nothing; the key is kept on the change; the
 * same key with another customer, channel or body, or first used for a decision, is `422 1010`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProduct } from '../../src/products/index.js';
import { apiOf } from '../helpers/api.js';
import { expectErrorShape, json, startTestApp, type TestApp } from '../helpers/app.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';

const actor = { actorKind: 'operator', actor: 'test', ip: 'local', userAgent: null } as const;

describe.each(stores)('channel changes with an Idempotency-Key on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let b: SeededTenant;
  let versionId: string;

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
    const code = await seedTemplate(t.db, a.tenant.id);
    versionId = (await publish(t.db, a.tenant.id, code)).consent_version_id;
  });
  afterAll(async () => {
    await t.close();
  });

  const put = (
    customer: string,
    channel: string,
    blocked: unknown,
    key: string | undefined,
    headers: Record<string, string> = a.headers,
  ) =>
    t.app.inject({
      method: 'PUT',
      url: `/api/v1/customers/${encodeURIComponent(customer)}/channels/savings/${channel}`,
      headers: {
        ...headers,
        'content-type': 'application/json',
        ...(key === undefined ? {} : { 'idempotency-key': key }),
      },
      payload: JSON.stringify({ blocked }),
    });
  const changesOf = (key: string) =>
    t.db
      .selectFrom('channel_changes')
      .select(['id', 'idempotency_key', 'blocked'])
      .where('tenant_id', '=', a.tenant.id)
      .where('idempotency_key', '=', key)
      .execute();

  it('a retry with the same key answers the first 201 again, byte for byte, and records nothing', async () => {
    const first = await put('ida', 'email', true, 'block-ida-email-1');
    expect(first.statusCode, first.body).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const changes = await changesOf('block-ida-email-1');
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ idempotency_key: 'block-ida-email-1', blocked: 1 });
    expect(json(first).data.record_id).toBe(changes[0]?.id);

    const retry = await put('ida', 'email', true, 'block-ida-email-1');
    expect(retry.statusCode, retry.body).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toBe(first.body);

    // Allowed again since, without a key: the key still answers its first answer.
    expect((await put('ida', 'email', false, undefined)).statusCode).toBe(201);
    const later = await put('ida', 'email', true, 'block-ida-email-1');
    expect(later.statusCode).toBe(201);
    expect(later.body).toBe(first.body);
    expect(await changesOf('block-ida-email-1')).toHaveLength(1);
    const all = await t.db
      .selectFrom('channel_changes')
      .select('id')
      .where('tenant_id', '=', a.tenant.id)
      .where('product_code', '=', 'savings')
      .where('channel', '=', 'email')
      .execute();
    expect(all).toHaveLength(2);
  });

  it('an unchanged answer (200) is kept and replayed too', async () => {
    const first = await put('ivan', 'sms', false, 'allow-ivan-sms');
    expect(first.statusCode).toBe(200);
    expect(json(first)).toEqual({
      data: {
        product_code: 'savings',
        channel: 'sms',
        blocked: false,
        since: null,
        record_id: null,
      },
    });
    const retry = await put('ivan', 'sms', false, 'allow-ivan-sms');
    expect(retry.statusCode).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toBe(first.body);
  });

  it('the same key with another customer, channel or body is 422 1010, and records nothing', async () => {
    expect((await put('jane', 'push', true, 'jane-push')).statusCode).toBe(201);
    for (const response of [
      await put('jill', 'push', true, 'jane-push'),
      await put('jane', 'post', true, 'jane-push'),
      await put('jane', 'push', false, 'jane-push'),
    ]) {
      expect(response.statusCode, response.body).toBe(422);
      expect(expectErrorShape(response)).toEqual({
        code: '1010',
        message: 'Idempotency key reused with a different request.',
      });
    }
    expect(await changesOf('jane-push')).toHaveLength(1);
    const jill = await t.app.inject({
      method: 'GET',
      url: '/api/v1/customers/jill/channels',
      headers: a.headers,
    });
    expect(json(jill).data.every((s: { blocked: boolean }) => !s.blocked)).toBe(true);
  });

  it("a decision's key reused on a channel is 422 1010, and a channel's key on a decision too", async () => {
    const decided = await apiOf(t.app, a.headers).decide('kate', versionId, 'given', {
      'idempotency-key': 'kate-shared-key',
    });
    expect(decided.statusCode, decided.body).toBe(201);
    const onChannel = await put('kate', 'email', true, 'kate-shared-key');
    expect(onChannel.statusCode, onChannel.body).toBe(422);
    expect(expectErrorShape(onChannel).code).toBe('1010');

    expect((await put('kate', 'sms', true, 'kate-channel-key')).statusCode).toBe(201);
    const onDecision = await apiOf(t.app, a.headers).decide('kate', versionId, 'given', {
      'idempotency-key': 'kate-channel-key',
    });
    expect(onDecision.statusCode, onDecision.body).toBe(422);
    expect(expectErrorShape(onDecision).code).toBe('1010');
  });

  it("keys are the tenant's: another tenant's same key is a request of its own", async () => {
    expect((await put('lena', 'email', true, 'lena-key')).statusCode).toBe(201);
    const theirs = await put('lena', 'email', true, 'lena-key', b.headers);
    expect(theirs.statusCode, theirs.body).toBe(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
  });

  it('past 24 hours the key no longer replays: the request is answered afresh', async () => {
    const first = await put('mona', 'phone', true, 'mona-phone');
    expect(first.statusCode).toBe(201);
    const dayAndMinuteAgo = new Date(Date.now() - (24 * 60 + 1) * 60 * 1000).toISOString();
    await t.db
      .updateTable('idempotency_keys')
      .set({ created_at: dayAndMinuteAgo })
      .where('tenant_id', '=', a.tenant.id)
      .where('key', '=', 'mona-phone')
      .execute();
    const afresh = await put('mona', 'phone', true, 'mona-phone');
    expect(afresh.statusCode, afresh.body).toBe(200);
    expect(afresh.headers['idempotent-replayed']).toBeUndefined();
    expect(json(afresh).data).toEqual(json(first).data);
    // The answer now kept is the new one.
    const again = await put('mona', 'phone', true, 'mona-phone');
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
  });

  it('concurrent requests with one key record one change and answer alike', async () => {
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => put('nina', 'email', true, 'nina-burst')),
    );
    expect(answers.map((r) => r.statusCode)).toEqual([201, 201, 201, 201, 201, 201]);
    expect(new Set(answers.map((r) => r.body)).size).toBe(1);
    expect(answers.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(5);
    expect(await changesOf('nina-burst')).toHaveLength(1);
  });

  it('a key that is not 1 to 255 printable characters is 400 1001', async () => {
    for (const key of ['x'.repeat(256), 'tab\there']) {
      const response = await put('olga', 'email', true, key);
      expect(response.statusCode, response.body).toBe(400);
      expect(expectErrorShape(response).code).toBe('1001');
    }
  });
});
