import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { listAudit } from '../../src/audit-trail/service.js';
import {
  createEndpoint,
  enableEndpoint,
  getEndpoint,
  listDeliveries,
} from '../../src/webhooks/service.js';
import { apiOf } from '../helpers/api.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { publish, seedTemplate, seedTenant, unique } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';
import { byCli, eventually, fastWebhooks, startReceiver } from '../helpers/webhook-receiver.js';

describe.each(stores)('webhook endpoints ($name)', (store) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(store, { ...fastWebhooks, WEBHOOK_GIVE_UP_AFTER_MS: '400' });
  });
  afterAll(async () => {
    await t.close();
  });

  async function decided(events: string[], url: string) {
    const { tenant, headers } = await seedTenant(t.db);
    const created = await createEndpoint(
      t.db,
      t.vault,
      t.config.webhooks,
      registry,
      byCli(tenant.id),
      {
        url,
        events,
      },
    );
    const code = await seedTemplate(t.db, tenant.id);
    const version = await publish(t.db, tenant.id, code);
    await apiOf(t.app, headers).decide(unique('c'), version.consent_version_id, 'given');
    return { tenant, endpoint: created.endpoint };
  }

  it('an endpoint failing past the give-up window is disabled, said in the audit log, and enabled again delivers', async () => {
    const receiver = await startReceiver(() => 503);
    try {
      const { tenant, endpoint } = await decided(['decision.given'], receiver.url);
      await eventually(
        async () => (await getEndpoint(t.db, tenant.id, endpoint.id)).status === 'disabled',
      );
      const disabled = await getEndpoint(t.db, tenant.id, endpoint.id);
      expect(disabled.disabled_reason).toContain('answered 503');
      expect(receiver.received.length).toBeGreaterThan(1);
      const { items } = await listAudit(t.db, { tenantId: tenant.id }, {}, undefined);
      expect(items.map((e) => e.action)).toContain('webhook.disabled');
      // Nothing more is tried while disabled.
      const tried = receiver.received.length;
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(receiver.received.length).toBe(tried);
      receiver.answer(() => 204);
      await t.db.transaction().execute((trx) => enableEndpoint(trx, byCli(tenant.id), endpoint.id));
      await eventually(async () => {
        const [latest] = (await listDeliveries(t.db, tenant.id, endpoint.id, 1)).deliveries;
        return latest?.status === 'delivered';
      });
      expect(receiver.received.at(-1)?.status).toBe(204);
      expect((await getEndpoint(t.db, tenant.id, endpoint.id)).failures).toBe(0);
    } finally {
      await receiver.close();
    }
  });

  it('a host name that resolves to loopback is refused at delivery over https, and nothing is sent', async () => {
    const receiver = await startReceiver();
    try {
      const url = `https://localhost:${receiver.port}/hook`;
      const { tenant, endpoint } = await decided(['decision.given'], url);
      await eventually(
        async () => (await listDeliveries(t.db, tenant.id, endpoint.id, 5)).deliveries.length > 0,
      );
      const [first] = (await listDeliveries(t.db, tenant.id, endpoint.id, 5)).deliveries;
      expect(first?.status).toBe('failed');
      expect(first?.response_code).toBeNull();
      expect(first?.error).toMatch(/^refused: localhost: .*loopback/);
      expect(receiver.received).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  it('an event type nobody knows, or none, is refused with the field named', async () => {
    const { tenant } = await seedTenant(t.db);
    for (const events of [['decision.maybe'], [], ['']]) {
      await expect(
        createEndpoint(t.db, t.vault, t.config.webhooks, registry, byCli(tenant.id), {
          url: 'https://hooks.example.com/in',
          events,
        }),
      ).rejects.toMatchObject({ code: '1001', details: [{ field: 'events' }] });
    }
  });

  it("another tenant's endpoint is not found", async () => {
    const a = await seedTenant(t.db);
    const b = await seedTenant(t.db);
    const { endpoint } = await createEndpoint(
      t.db,
      t.vault,
      t.config.webhooks,
      registry,
      byCli(a.tenant.id),
      {
        url: 'https://hooks.example.com/in',
        events: ['decision.given'],
      },
    );
    await expect(getEndpoint(t.db, b.tenant.id, endpoint.id)).rejects.toMatchObject({
      code: '1004',
    });
  });
});

describe.each(stores)('webhooks to an allowed network ($name)', (store) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(store, {
      WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
      WEBHOOK_DISPATCH_INTERVAL_MS: '20',
      WEBHOOK_RETRY_BASE_MS: '60000',
      WEBHOOK_TIMEOUT_MS: String(budget(2_000)),
      LOG_INTEGRATE_INTERVAL_MS: '20',
    });
  });
  afterAll(async () => {
    await t.close();
  });

  it('a host name resolving to loopback is connected to when the operator allows the range', async () => {
    const receiver = await startReceiver();
    try {
      const { tenant, headers } = await seedTenant(t.db);
      const { endpoint } = await createEndpoint(
        t.db,
        t.vault,
        t.config.webhooks,
        registry,
        byCli(tenant.id),
        {
          url: `https://localhost:${receiver.port}/hook`,
          events: ['decision.given'],
        },
      );
      const code = await seedTemplate(t.db, tenant.id);
      const version = await publish(t.db, tenant.id, code);
      await apiOf(t.app, headers).decide(unique('c'), version.consent_version_id, 'given');
      await eventually(
        async () => (await listDeliveries(t.db, tenant.id, endpoint.id, 5)).deliveries.length > 0,
      );
      const [first] = (await listDeliveries(t.db, tenant.id, endpoint.id, 5)).deliveries;
      // The receiver speaks plain HTTP: the TLS handshake fails, so the connection was made.
      expect(first?.status).toBe('failed');
      expect(first?.error).not.toMatch(/^refused/);
    } finally {
      await receiver.close();
    }
  });
});
