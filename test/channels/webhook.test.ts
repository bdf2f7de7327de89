/**
 * The `channel_change.recorded` webhook event, on both stores: written in the change's own
 * transaction when an endpoint takes it, delivered signed with the change, its customer and who
 * made it (an API key or a back-office user) and its place in the log; a change that records
 * nothing sends nothing, and an erased customer's event names nobody.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { eraseCustomer } from '../../src/erasure/service.js';
import { createProduct } from '../../src/products/index.js';
import { createEndpoint } from '../../src/webhooks/service.js';
import { signedIn, startBackofficeApp } from '../backoffice/support.js';
import { userIdOf } from '../backoffice/team-support.js';
import { json, type TestApp } from '../helpers/app.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import {
  byCli,
  eventually,
  fastWebhooks,
  startReceiver,
  verified,
} from '../helpers/webhook-receiver.js';

const actor = { actorKind: 'operator', actor: 'test', ip: 'local', userAgent: null } as const;

describe.each(stores)('channel_change.recorded on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let quiet: SeededTenant;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let secret: string;

  beforeAll(async () => {
    t = await startBackofficeApp(store, fastWebhooks);
    receiver = await startReceiver();
    a = await seedTenant(t.db);
    quiet = await seedTenant(t.db);
    for (const tenant of [a, quiet]) {
      await t.db.transaction().execute((trx) =>
        createProduct(trx, { ...actor, tenantId: tenant.tenant.id }, tenant.tenant.id, {
          code: 'savings',
          name: 'Savings',
        }),
      );
    }
    ({ secret } = await createEndpoint(
      t.db,
      t.vault,
      t.config.webhooks,
      registry,
      byCli(a.tenant.id),
      {
        url: receiver.url,
        events: ['channel_change.recorded'],
      },
    ));
  });
  afterAll(async () => {
    await receiver?.close();
    await t.close();
  });

  const put = (tenant: SeededTenant, customer: string, channel: string, blocked: boolean) =>
    t.app.inject({
      method: 'PUT',
      url: `/api/v1/customers/${customer}/channels/savings/${channel}`,
      headers: { ...tenant.headers, 'content-type': 'application/json' },
      payload: JSON.stringify({ blocked }),
    });
  const payloads = () =>
    receiver.received.map((got) => verified(secret, got) as { type: string; data: any });
  const eventOf = async (changeId: string) => {
    await eventually(() => payloads().some((p) => p.data.change_id === changeId));
    return payloads().find((p) => p.data.change_id === changeId);
  };

  it("an API key's change is delivered with the change, its customer, the key and its log index", async () => {
    const response = await put(a, 'wes', 'sms', true);
    expect(response.statusCode).toBe(201);
    const state = json(response).data;
    const event = await eventOf(state.record_id);
    expect(event?.type).toBe('channel_change.recorded');
    expect(event?.data).toEqual({
      change_id: state.record_id,
      customer_id: 'wes',
      product_code: 'savings',
      channel: 'sms',
      blocked: true,
      changed_at: state.since,
      actor: { api_key_id: a.apiKey.id, user_id: null },
      log_index: expect.any(Number),
    });
    expect(Object.keys(event?.data ?? {})).toEqual([
      'change_id',
      'customer_id',
      'product_code',
      'channel',
      'blocked',
      'changed_at',
      'actor',
      'log_index',
    ]);
  });

  it("a back-office user's change names the user and no key", async () => {
    const admin = await signedIn(t.app, a.tenant.email);
    await admin.get('/backoffice/customers?customer_id=xena');
    const posted = await admin.post('/backoffice/customers/channels', {
      customer_id: 'xena',
      product_code: 'savings',
      channel: 'post',
      blocked: 'true',
    });
    expect(posted.statusCode).toBe(200);
    const change = await t.db
      .selectFrom('channel_changes')
      .select('id')
      .where('tenant_id', '=', a.tenant.id)
      .where('channel', '=', 'post')
      .executeTakeFirstOrThrow();
    const userId = await userIdOf(t.db, a.tenant.email);
    const event = await eventOf(change.id);
    expect(event?.data).toMatchObject({
      customer_id: 'xena',
      channel: 'post',
      blocked: true,
      actor: { api_key_id: null, user_id: userId },
    });
  });

  it('a change that records nothing writes no event; a tenant with no endpoint for it writes none', async () => {
    expect((await put(a, 'wes', 'sms', true)).statusCode).toBe(200);
    expect((await put(quiet, 'yuri', 'email', true)).statusCode).toBe(201);
    const events = await t.db
      .selectFrom('webhook_events')
      .select(['tenant_id', 'type'])
      .where('type', '=', 'channel_change.recorded')
      .execute();
    expect(events.map((e) => e.tenant_id)).toEqual([a.tenant.id, a.tenant.id]);
  });

  it("once the customer is erased, the event's customer id can no longer be opened", async () => {
    const state = json(await put(a, 'zoe', 'phone', true)).data;
    await eventOf(state.record_id);
    await eraseCustomer(t.db, t.vault, registry, a.tenant.id, 'zoe', byCli(a.tenant.id));
    const row = await t.db
      .selectFrom('webhook_events')
      .select(['data'])
      .where('record_id', '=', state.record_id)
      .executeTakeFirstOrThrow();
    expect(row.data).not.toContain('zoe');
    const { messagesOf } = await import('../../src/webhooks/delivery.js');
    const events = await t.db
      .selectFrom('webhook_events')
      .selectAll()
      .where('record_id', '=', state.record_id)
      .execute();
    const [message] = await messagesOf(t.db, t.vault, registry, events);
    expect(JSON.parse(message?.body ?? '{}').data.customer_id).toBeNull();
  });
});
