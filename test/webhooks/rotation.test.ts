import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { createEndpoint, rotateSecret } from '../../src/webhooks/service.js';
import { apiOf } from '../helpers/api.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { publish, seedTemplate, seedTenant, unique } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import {
  byCli,
  eventually,
  fastWebhooks,
  type Received,
  startReceiver,
  verified,
} from '../helpers/webhook-receiver.js';

/** The overlap this file sets: one hour, so that a rotation two hours ago is past it. */
const overlapMs = 60 * 60 * 1000;

/**
 * Rotating an endpoint's secret: for WEBHOOK_SECRET_OVERLAP_MS after the rotation, each delivery
 * is signed under the old secret and the new one (Standard Webhooks lets `webhook-signature`
 * carry several, space-separated), so a receiver still verifying with the old one loses nothing
 * while it is redeployed; after that, under the new one only. The rotation's time is given to
 * it (the clock the overlap is counted from), so no test waits for the overlap to pass.
 */
describe.each(stores)('rotating a webhook secret on $name', (store) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(store, {
      ...fastWebhooks,
      WEBHOOK_SECRET_OVERLAP_MS: String(overlapMs),
    });
  });
  afterAll(async () => {
    await t.close();
  });

  const signaturesOf = (got: Received | undefined) =>
    String(got?.headers['webhook-signature']).split(' ');

  it('signs under the old and the new secret during the overlap, and under the new only after it', async () => {
    const receiver = await startReceiver(() => 204);
    try {
      const { tenant, headers } = await seedTenant(t.db);
      const code = await seedTemplate(t.db, tenant.id);
      const version = await publish(t.db, tenant.id, code);
      const by = byCli(tenant.id);
      const { endpoint, secret: first } = await createEndpoint(
        t.db,
        t.vault,
        t.config.webhooks,
        registry,
        by,
        { url: receiver.url, events: ['decision.given'] },
      );
      const api = apiOf(t.app, headers);
      const deliveredNext = async () => {
        const seen = receiver.received.length;
        const decided = await api.decide(unique('c'), version.consent_version_id, 'given');
        expect(decided.statusCode).toBe(201);
        await eventually(() => receiver.received.length > seen);
        return receiver.received[seen] as Received;
      };

      // Before any rotation: one signature, the first secret's.
      const before = await deliveredNext();
      expect(signaturesOf(before)).toHaveLength(1);
      expect(verified(first, before).type).toBe('decision.given');

      // Rotated now: within the overlap, both secrets verify the same delivery.
      const rotated = await t.db
        .transaction()
        .execute((trx) =>
          rotateSecret(trx, t.vault, by, endpoint.id, t.config.webhooks, new Date()),
        );
      expect(rotated.secret).not.toBe(first);
      const during = await deliveredNext();
      expect(signaturesOf(during)).toHaveLength(2);
      expect(verified(first, during).type).toBe('decision.given');
      expect(verified(rotated.secret, during).type).toBe('decision.given');

      // Rotated again, by a clock two hours back: its overlap is over, and the secret before it
      // no longer signs.
      const twoHoursAgo = new Date(Date.now() - 2 * overlapMs);
      const again = await t.db
        .transaction()
        .execute((trx) =>
          rotateSecret(trx, t.vault, by, endpoint.id, t.config.webhooks, twoHoursAgo),
        );
      const after = await deliveredNext();
      expect(signaturesOf(after)).toHaveLength(1);
      expect(verified(again.secret, after).type).toBe('decision.given');
      expect(() => verified(rotated.secret, after)).toThrow();
      expect(() => verified(first, after)).toThrow();
    } finally {
      await receiver.close();
    }
  });

  it('says until when the old secret still signs, and the setting defaults to 24 hours', async () => {
    const { tenant } = await seedTenant(t.db);
    const by = byCli(tenant.id);
    const { endpoint } = await createEndpoint(t.db, t.vault, t.config.webhooks, registry, by, {
      url: 'https://hooks.example.com/in',
      events: ['customer.erased'],
    });
    const at = new Date('2026-11-26T10:00:00.000Z');
    const rotated = await t.db
      .transaction()
      .execute((trx) => rotateSecret(trx, t.vault, by, endpoint.id, t.config.webhooks, at));
    expect(rotated).toMatchObject({
      id: endpoint.id,
      previous_secret_signs_until: '2026-11-26T11:00:00.000Z',
    });
    const defaults = await startTestApp(store);
    try {
      expect(defaults.config.webhooks.secretOverlapMs).toBe(24 * 60 * 60 * 1000);
    } finally {
      await defaults.close();
    }
  });
});
