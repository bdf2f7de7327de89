import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app/app.js';
import { registry } from '../../src/app/kinds.js';
import { createDb, type Db } from '../../src/platform/db.js';
import { createEndpoint, listDeliveries } from '../../src/webhooks/service.js';
import { apiOf } from '../helpers/api.js';
import { json, startTestApp, type TestApp } from '../helpers/app.js';
import { publish, seedTemplate, seedTenant, unique } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';
import {
  byCli,
  eventually,
  fastWebhooks,
  startReceiver,
  verified,
} from '../helpers/webhook-receiver.js';

describe.each(stores)('two instances sending webhooks ($name)', (store) => {
  let t: TestApp;
  let secondDb: Db;
  let second: FastifyInstance;
  beforeAll(async () => {
    t = await startTestApp(store, {
      ...fastWebhooks,
      WEBHOOK_DISPATCH_INTERVAL_MS: '10',
      WEBHOOK_TIMEOUT_MS: '300',
    });
    // A second instance on the same store: its own connections, writers and dispatcher.
    secondDb = createDb(t.config);
    second = await buildApp(t.config, secondDb, { logger: false });
    await second.ready();
  });
  afterAll(async () => {
    await second?.close();
    await secondDb?.destroy();
    await t.close();
  });

  it('each event is sent once, by one of them, in order, while both run', async () => {
    const receiver = await startReceiver();
    try {
      const { tenant, headers } = await seedTenant(t.db);
      const { secret } = await createEndpoint(
        t.db,
        t.vault,
        t.config.webhooks,
        registry,
        byCli(tenant.id),
        {
          url: receiver.url,
          events: ['decision.given'],
        },
      );
      const code = await seedTemplate(t.db, tenant.id);
      const version = await publish(t.db, tenant.id, code);
      const ids: string[] = [];
      for (let i = 0; i < 15; i++) {
        // Half through each instance.
        const app = i % 2 === 0 ? t.app : second;
        const answer = await apiOf(app, headers).decide(
          unique('c'),
          version.consent_version_id,
          'given',
        );
        ids.push(json(answer).data.decision_id);
      }
      await eventually(() => receiver.received.length >= ids.length);
      // Both go on looking for a while: nothing is sent twice.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const got = receiver.received.map((r) => verified(secret, r).data.decision_id as string);
      expect([...got].sort()).toEqual([...ids].sort());
      const positions = receiver.received.map((r) => Number(r.headers['webhook-position']));
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
    } finally {
      await receiver.close();
    }
  });

  it('an attempt with no answer within the bound is a failure, recorded as such, and retried', async () => {
    const receiver = await startReceiver((_got, index) => (index === 0 ? 'hold' : 200));
    try {
      const { tenant, headers } = await seedTenant(t.db);
      const { endpoint } = await createEndpoint(
        t.db,
        t.vault,
        t.config.webhooks,
        registry,
        byCli(tenant.id),
        {
          url: receiver.url,
          events: ['decision.given'],
        },
      );
      const code = await seedTemplate(t.db, tenant.id);
      const version = await publish(t.db, tenant.id, code);
      await apiOf(t.app, headers).decide(unique('c'), version.consent_version_id, 'given');
      await eventually(
        async () => (await listDeliveries(t.db, tenant.id, endpoint.id, 5)).deliveries.length >= 2,
        budget(5_000),
      );
      const { deliveries } = await listDeliveries(t.db, tenant.id, endpoint.id, 5);
      expect(deliveries.map((d) => [d.status, d.response_code, d.error])).toEqual([
        ['delivered', 200, null],
        ['failed', null, 'no answer within 300 ms'],
      ]);
    } finally {
      await receiver.close();
    }
  });
});
