/**
 * Channel blocks through the API, on both stores: a customer's channel blocked and allowed per
 * product, the listing, the refusals, another tenant's view, receipts that verify offline, the
 * log's audit over decisions and channel changes, erasure, and concurrent changes of one channel.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { auditLog } from '../../src/decision-log/audit.js';
import { eraseCustomer } from '../../src/erasure/service.js';
import { createProduct } from '../../src/products/index.js';
import { parseVerifierKey, verifyReceipt } from '../../src/proof/index.js';
import { personalReader } from '../../src/subjects/index.js';
import { apiOf } from '../helpers/api.js';
import { expectErrorShape, json, startTestApp, type TestApp, testLogKeys } from '../helpers/app.js';
import { storedLookup } from '../helpers/schema-history.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { storeBytes } from '../helpers/store-scan.js';
import { stores } from '../helpers/stores.js';

const actor = { actorKind: 'operator', actor: 'test', ip: 'local', userAgent: null } as const;
const userAgent = 'ChannelProbe/2.1 (marker-9c41e7aa)';
const ip = '203.0.113.58';
const allChannels = ['email', 'sms', 'push', 'phone', 'post'];

describe.each(stores)('channel blocks on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let b: SeededTenant;
  let versionId: string;

  beforeAll(async () => {
    t = await startTestApp(store, { LOG_INTEGRATE_INTERVAL_MS: '60000' });
    a = await seedTenant(t.db);
    b = await seedTenant(t.db);
    for (const [code, name] of [
      ['savings', 'Savings'],
      ['loans', 'Loans'],
    ]) {
      await t.db
        .transaction()
        .execute((trx) =>
          createProduct(trx, { ...actor, tenantId: a.tenant.id }, a.tenant.id, { code, name }),
        );
    }
    await t.db.transaction().execute((trx) =>
      createProduct(trx, { ...actor, tenantId: b.tenant.id }, b.tenant.id, {
        code: 'savings',
        name: 'Savings',
      }),
    );
    const code = await seedTemplate(t.db, a.tenant.id);
    versionId = (await publish(t.db, a.tenant.id, code)).consent_version_id;
  });
  afterAll(async () => {
    await t.close();
  });

  const put = (
    customer: string,
    product: string,
    channel: string,
    payload: unknown,
    headers: Record<string, string> = a.headers,
  ) =>
    t.app.inject({
      method: 'PUT',
      url: `/api/v1/customers/${encodeURIComponent(customer)}/channels/${product}/${channel}`,
      headers: { ...headers, 'user-agent': userAgent, 'content-type': 'application/json' },
      payload: JSON.stringify(payload),
      remoteAddress: ip,
    });
  const list = async (customer: string, headers: Record<string, string> = a.headers) => {
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/v1/customers/${encodeURIComponent(customer)}/channels`,
      headers,
    });
    expect(response.statusCode, response.body).toBe(200);
    return json(response).data as {
      product_code: string;
      channel: string;
      blocked: boolean;
      since: string | null;
      record_id: string | null;
    }[];
  };
  const stateOf = async (customer: string, product: string, channel: string) =>
    (await list(customer)).find((s) => s.product_code === product && s.channel === channel);
  const receipt = async (id: string) => {
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/v1/channel-changes/${id}/receipt?wait=true`,
      headers: a.headers,
    });
    expect(response.statusCode, response.body).toBe(200);
    return json(response);
  };
  const verifier = () => {
    const key = parseVerifierKey(testLogKeys.verifierKey);
    if (!key.ok) throw new Error(key.reason);
    return key.value;
  };

  it('blocking records a change (201); blocking again records nothing (200); allowing records one', async () => {
    const blocked = await put('alice', 'savings', 'email', { blocked: true });
    expect(blocked.statusCode, blocked.body).toBe(201);
    const first = json(blocked).data;
    expect(first).toEqual({
      product_code: 'savings',
      channel: 'email',
      blocked: true,
      since: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      record_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(Object.keys(first)).toEqual([
      'product_code',
      'channel',
      'blocked',
      'since',
      'record_id',
    ]);

    const again = await put('alice', 'savings', 'email', { blocked: true });
    expect(again.statusCode, again.body).toBe(200);
    expect(json(again).data).toEqual(first);
    const count = await t.db
      .selectFrom('channel_changes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tenant_id', '=', a.tenant.id)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1);

    const allowed = await put('alice', 'savings', 'email', { blocked: false });
    expect(allowed.statusCode, allowed.body).toBe(201);
    expect(json(allowed).data).toMatchObject({ blocked: false });
    expect(json(allowed).data.record_id).not.toBe(first.record_id);
    expect(await stateOf('alice', 'savings', 'email')).toEqual(json(allowed).data);
  });

  it('allowing a channel never blocked records nothing and answers it allowed, never changed', async () => {
    const response = await put('never-blocked', 'savings', 'sms', { blocked: false });
    expect(response.statusCode, response.body).toBe(200);
    expect(json(response)).toEqual({
      data: {
        product_code: 'savings',
        channel: 'sms',
        blocked: false,
        since: null,
        record_id: null,
      },
    });
    expect(await t.vault.lookup(a.tenant.id, 'never-blocked')).toBeTruthy();
    const subject = await t.db
      .selectFrom('subjects')
      .select('id')
      .where('lookup', '=', await storedLookup(t.db, t.vault.lookup(a.tenant.id, 'never-blocked')))
      .executeTakeFirst();
    expect(subject).toBeUndefined();
  });

  it('a block is per product: email blocked for savings stays allowed for loans', async () => {
    expect((await put('bob', 'savings', 'email', { blocked: true })).statusCode).toBe(201);
    const channels = await list('bob');
    expect(channels).toHaveLength(2 * allChannels.length);
    expect(channels.map((s) => `${s.product_code}/${s.channel}`)).toEqual([
      ...allChannels.map((c) => `loans/${c}`),
      ...allChannels.map((c) => `savings/${c}`),
    ]);
    const blocked = channels.filter((s) => s.blocked);
    expect(blocked.map((s) => `${s.product_code}/${s.channel}`)).toEqual(['savings/email']);
    expect(await stateOf('bob', 'loans', 'email')).toEqual({
      product_code: 'loans',
      channel: 'email',
      blocked: false,
      since: null,
      record_id: null,
    });
  });

  it('a customer the tenant never recorded has every channel allowed', async () => {
    const channels = await list('nobody-at-all');
    expect(channels).toHaveLength(10);
    expect(channels.every((s) => !s.blocked && s.since === null && s.record_id === null)).toBe(
      true,
    );
  });

  it('an unknown product or channel is 404 1004; a bad body is 400 1001 naming the field', async () => {
    for (const response of [
      await put('carol', 'no-such-product', 'email', { blocked: true }),
      await put('carol', 'savings', 'fax', { blocked: true }),
      await put('carol', 'savings', 'EMAIL', { blocked: true }),
    ]) {
      expect(response.statusCode, response.body).toBe(404);
      expect(expectErrorShape(response).code).toBe('1004');
    }
    for (const payload of [{}, { blocked: 'yes' }, { blocked: true, extra: 1 }, [true]]) {
      const response = await put('carol', 'savings', 'email', payload);
      expect(response.statusCode, response.body).toBe(400);
      expect(expectErrorShape(response).code).toBe('1001');
    }
    const missing = json(await put('carol', 'savings', 'email', { blocked: 'yes' }));
    expect(JSON.stringify(missing.details)).toContain('blocked');
    const noKey = await t.app.inject({
      method: 'GET',
      url: '/api/v1/customers/carol/channels',
    });
    expect(noKey.statusCode).toBe(401);
    expect(await list('carol')).toSatisfy((all: { blocked: boolean }[]) =>
      all.every((s) => !s.blocked),
    );
  });

  it("another tenant's key neither sees nor changes this tenant's channels", async () => {
    const blocked = json(await put('dave', 'loans', 'push', { blocked: true })).data;
    // Tenant b has no `loans` product: 404, and a's block stays.
    const other = await put('dave', 'loans', 'push', { blocked: false }, b.headers);
    expect(other.statusCode).toBe(404);
    expect(expectErrorShape(other).code).toBe('1004');
    // Its own `savings` is its own: dave has nothing blocked there.
    const theirs = await list('dave', b.headers);
    expect(theirs).toHaveLength(allChannels.length);
    expect(theirs.every((s) => !s.blocked)).toBe(true);
    const receiptByB = await t.app.inject({
      method: 'GET',
      url: `/api/v1/channel-changes/${blocked.record_id}/receipt`,
      headers: b.headers,
    });
    expect(receiptByB.statusCode).toBe(404);
    expect(expectErrorShape(receiptByB).code).toBe('1004');
    expect(await stateOf('dave', 'loans', 'push')).toEqual(blocked);
  });

  it('a change has a receipt that verifies offline, with the customer and evidence opened', async () => {
    const change = json(await put('erin', 'savings', 'post', { blocked: true })).data;
    const body = await receipt(change.record_id);
    expect(body.data.channel_change).toEqual({
      change_id: change.record_id,
      product_code: 'savings',
      channel: 'post',
      blocked: true,
      changed_at: change.since,
      customer_id: 'erin',
    });
    expect(body.data.opening).toMatchObject({ customer_id: 'erin', ip, user_agent: userAgent });
    expect(body.data.opening.api_key_id).toBe(a.apiKey.id);
    const verified = verifyReceipt(body, [verifier()], registry.formats);
    expect(verified).toMatchObject({
      ok: true,
      value: { kind: 'channel-change', opened: true, leaf: { productCode: 'savings' } },
    });
    // A receipt whose stated change is not the logged one fails.
    const altered = structuredClone(body);
    altered.data.channel_change.blocked = false;
    expect(verifyReceipt(altered, [verifier()], registry.formats)).toMatchObject({ ok: false });
    const unknown = await t.app.inject({
      method: 'GET',
      url: '/api/v1/channel-changes/0190e8a0-0000-7000-8000-000000000000/receipt',
      headers: a.headers,
    });
    expect(unknown.statusCode).toBe(404);
  });

  it('the audit of a log with decisions and channel changes is clean, and names a changed change', async () => {
    const decided = await apiOf(t.app, a.headers).decide('frank', versionId, 'given');
    expect(decided.statusCode, decided.body).toBe(201);
    const change = json(await put('frank', 'loans', 'sms', { blocked: true })).data;
    await receipt(change.record_id);
    const clean = await auditLog(t.db, t.vault, registry, a.tenant.id);
    expect(clean).toMatchObject({ ok: true, findings: [] });

    await t.db
      .updateTable('channel_changes')
      .set({ channel: 'push' })
      .where('id', '=', change.record_id)
      .execute();
    try {
      const report = await auditLog(t.db, t.vault, registry, a.tenant.id);
      expect(report.ok).toBe(false);
      expect(report.findings).toEqual([
        expect.objectContaining({ kind: 'record-differs-from-leaf', record_id: change.record_id }),
      ]);
    } finally {
      await t.db
        .updateTable('channel_changes')
        .set({ channel: 'sms' })
        .where('id', '=', change.record_id)
        .execute();
    }
  });

  it("erasing the customer shreds their changes' personal data and clears their blocks; the log still audits clean", async () => {
    const customer = 'gina.channels-4e1b@example.test';
    const change = json(await put(customer, 'savings', 'phone', { blocked: true })).data;
    await receipt(change.record_id);
    const erasedBefore = (await auditLog(t.db, t.vault, registry, a.tenant.id)).erased_records;
    const result = await eraseCustomer(t.db, t.vault, registry, a.tenant.id, customer, actor);
    expect(result.erased).toBe(true);

    const rows = await t.db
      .selectFrom('channel_changes')
      .select(['id', 'subject_id', 'personal'])
      .where('id', '=', change.record_id)
      .execute();
    expect(rows).toHaveLength(1);
    const opened = await personalReader(t.db, t.vault, a.tenant.id)(rows);
    expect(opened.map((o) => o.state)).toEqual(['erased']);
    const states = await t.db
      .selectFrom('channel_states')
      .selectAll()
      .where('subject_id', '=', result.subject_id as string)
      .execute();
    expect(states).toEqual([]);
    expect((await storeBytes(t.db, t.config.databaseUrl)).includes(customer)).toBe(false);
    // For the API the customer starts afresh, every channel allowed.
    expect((await list(customer)).every((s) => !s.blocked)).toBe(true);
    // The receipt still proves the change, without whose it was.
    const after = await receipt(change.record_id);
    expect(after.data.opening).toBeNull();
    expect(after.data.channel_change.customer_id).toBeNull();
    expect(verifyReceipt(after, [verifier()], registry.formats)).toMatchObject({
      ok: true,
      value: { opened: false },
    });
    // Its evidence commitment can no longer be opened: the report counts it among the erased.
    expect(await auditLog(t.db, t.vault, registry, a.tenant.id)).toMatchObject({
      ok: true,
      findings: [],
      erased_records: erasedBefore + 1,
    });
  });

  it('concurrent changes of one channel are serialized: one change per actual transition', async () => {
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => put('harry', 'savings', 'email', { blocked: true })),
    );
    expect(answers.map((r) => r.statusCode).sort()).toEqual([
      200, 200, 200, 200, 200, 200, 200, 201,
    ]);
    const ids = new Set(answers.map((r) => json(r).data.record_id));
    expect(ids.size).toBe(1);
    const subjects = await t.db
      .selectFrom('subjects')
      .select('id')
      .where('tenant_id', '=', a.tenant.id)
      .where('lookup', '=', await storedLookup(t.db, t.vault.lookup(a.tenant.id, 'harry')))
      .execute();
    expect(subjects).toHaveLength(1);
    const changes = await t.db
      .selectFrom('channel_changes')
      .select('id')
      .where('subject_id', '=', subjects[0]?.id as string)
      .execute();
    expect(changes).toHaveLength(1);
  });
});
