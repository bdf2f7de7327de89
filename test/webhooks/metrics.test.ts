import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { createEndpoint } from '../../src/webhooks/service.js';
import { apiOf } from '../helpers/api.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { parseScrape } from '../helpers/prometheus.js';
import { publish, seedTemplate, seedTenant, unique } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { byCli, eventually, fastWebhooks, startReceiver } from '../helpers/webhook-receiver.js';

const token = 'scrape-token-0123456789abcdef';

describe.each(stores)('webhook metrics on /metrics ($name)', (store) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(store, { ...fastWebhooks, METRICS_TOKEN: token });
  });
  afterAll(async () => {
    await t.close();
  });

  const scrape = async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.statusCode).toBe(200);
    return parseScrape(response.body);
  };
  const labels = { store: store.name === 'postgres' ? 'postgresql' : 'sqlite' };

  it('counts a failed attempt and its retry delivered, and shows the failing endpoint while it fails', async () => {
    // The first attempt is answered 500 and held off by the test until the failing gauge is seen.
    let failures = 0;
    let release = false;
    const receiver = await startReceiver(() => {
      if (failures === 0 || !release) {
        failures += 1;
        return 500;
      }
      return 204;
    });
    try {
      const { tenant, headers } = await seedTenant(t.db);
      const code = await seedTemplate(t.db, tenant.id);
      const version = await publish(t.db, tenant.id, code);
      await createEndpoint(t.db, t.vault, t.config.webhooks, registry, byCli(tenant.id), {
        url: receiver.url,
        events: ['decision.given'],
      });
      const before = await scrape();
      const attempts = (outcome: string, s = before) =>
        s.value('consent_webhook_attempts_total', { outcome }) ?? 0;
      const api = apiOf(t.app, headers);
      expect((await api.decide(unique('c'), version.consent_version_id, 'given')).statusCode).toBe(
        201,
      );
      await eventually(async () => {
        const s = await scrape();
        return (
          attempts('failed', s) > attempts('failed') &&
          (s.value('consent_webhook_failing_endpoints', labels) ?? 0) >= 1 &&
          (s.value('consent_webhook_backlog_positions', labels) ?? 0) >= 1
        );
      });
      release = true;
      await eventually(() => receiver.received.some((got) => got.status === 204));
      await eventually(async () => {
        const s = await scrape();
        return (
          attempts('delivered', s) === attempts('delivered') + 1 &&
          (s.value('consent_webhook_backlog_positions', labels) ?? -1) === 0 &&
          (s.value('consent_webhook_failing_endpoints', labels) ?? -1) === 0
        );
      });
      const after = await scrape();
      expect(attempts('failed', after) - attempts('failed')).toBe(failures);
      expect(after.value('consent_webhook_unsequenced_events', labels)).toBe(0);
      expect(after.type('consent_webhook_disabled_endpoints')).toBe('GAUGE');
    } finally {
      await receiver.close();
    }
  });
});
