import { randomUUID } from 'node:crypto';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { eraseCustomer } from '../../src/erasure/service.js';
import { createPartner } from '../../src/partners/index.js';
import { createProduct } from '../../src/products/index.js';
import { publishOutsideReview } from '../../src/templates/index.js';
import { createEndpoint } from '../../src/webhooks/service.js';
import { apiOf } from '../helpers/api.js';
import { json, startTestApp, type TestApp } from '../helpers/app.js';
import { seedPublishedSystem } from '../helpers/cookies.js';
import { publish, seedTemplate, seedTenant, unique } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import {
  byCli,
  eventually,
  fastWebhooks,
  startReceiver,
  verified,
} from '../helpers/webhook-receiver.js';

describe.each(stores)('the webhooks of the OpenAPI document ($name)', (store) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(store, fastWebhooks);
  });
  afterAll(async () => {
    await t.close();
  });

  it('describe the events a receiver gets: each delivered body and its headers fit', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/docs/json' });
    const webhooks = json(response).webhooks as Record<string, any>;
    expect(webhooks).toBeDefined();
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);

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
          events: [
            'decision.given',
            'decision.withdraw',
            'version.published',
            'customer.erased',
            'cookie_decision.recorded',
            'channel_change.recorded',
            'partner_block.recorded',
          ],
        },
      );
      const code = await seedTemplate(t.db, tenant.id);
      const first = await publish(t.db, tenant.id, code);
      const api = apiOf(t.app, headers);
      const customer = unique('c');
      await api.decide(customer, first.consent_version_id, 'given');
      await api.decide(customer, first.consent_version_id, 'withdraw');
      await publish(t.db, tenant.id, code);
      await eraseCustomer(t.db, t.vault, registry, tenant.id, customer, byCli(tenant.id));
      const site = await seedPublishedSystem(t.db, tenant.id, { categories: ['analytics'] });
      const visitor = randomUUID();
      const chosen = await t.app.inject({
        method: 'POST',
        url: `/cookies/v1/${site.scope}/decisions`,
        headers: { origin: 'https://www.bank.example', 'content-type': 'text/plain' },
        payload: JSON.stringify({
          event_id: randomUUID(),
          visitor_id: visitor,
          configuration_id: site.configurationId,
          configuration_version: site.version,
          method: 'custom',
          categories: { necessary: true, analytics: false },
          locale: 'th',
        }),
      });
      expect(chosen.statusCode).toBe(201);
      await t.db
        .transaction()
        .execute((trx) =>
          createProduct(trx, byCli(tenant.id), tenant.id, { code: 'savings', name: 'Savings' }),
        );
      const blocked = await t.app.inject({
        method: 'PUT',
        url: `/api/v1/customers/${customer}/channels/savings/email`,
        headers: { ...headers, 'content-type': 'application/json' },
        payload: '{"blocked":true}',
      });
      expect(blocked.statusCode).toBe(201);
      const by = byCli(tenant.id);
      await t.db
        .transaction()
        .execute((trx) =>
          createPartner(trx, by, tenant.id, { code: 'acme-insure', name: 'Acme Insurance' }),
        );
      const sharing = await seedTemplate(t.db, tenant.id);
      const listing = await t.db
        .transaction()
        .execute((trx) =>
          publishOutsideReview(
            trx,
            by,
            tenant.id,
            sharing,
            { tag: '1.0', content_html: '<p>Sharing</p>' },
            { partners: ['acme-insure'] },
          ),
        );
      const decided = await api.decide('partner-customer', listing.id, 'given');
      const partnerBlocked = await t.app.inject({
        method: 'PUT',
        url: `/api/v1/customers/partner-customer/consents/decisions/${json(decided).data.decision_id}/partners/acme-insure`,
        headers: { ...headers, 'content-type': 'application/json' },
        payload: JSON.stringify({ blocked: true }),
      });
      expect(partnerBlocked.statusCode, partnerBlocked.body).toBe(201);
      await eventually(() => receiver.received.length >= 10);

      const types = new Set<string>();
      for (const got of receiver.received) {
        const payload = verified(secret, got);
        types.add(payload.type);
        const post = webhooks[payload.type]?.post;
        expect(post, payload.type).toBeDefined();
        const validate = ajv.compile(post.requestBody.content['application/json'].schema);
        expect(validate(JSON.parse(got.body)), JSON.stringify(validate.errors)).toBe(true);
        for (const parameter of post.parameters) {
          const value = got.headers[parameter.name];
          expect(value, parameter.name).toEqual(expect.any(String));
          const typed = parameter.schema.type === 'integer' ? Number(value) : value;
          expect(ajv.validate(parameter.schema, typed), `${parameter.name}: ${value}`).toBe(true);
        }
      }
      const cookie = receiver.received
        .map((got) => JSON.parse(got.body))
        .find((payload) => payload.type === 'cookie_decision.recorded');
      expect(cookie.data).toMatchObject({
        decision_id: json(chosen).data.decision_id,
        visitor_id: visitor,
        system: site.scope,
        method: 'custom',
        categories: { necessary: true, analytics: false },
        locale: 'th',
        origin: 'https://www.bank.example',
      });
      const partner = receiver.received
        .map((got) => JSON.parse(got.body))
        .find((payload) => payload.type === 'partner_block.recorded');
      expect(partner.data).toEqual({
        change_id: json(partnerBlocked).data.record_id,
        customer_id: 'partner-customer',
        decision_id: json(decided).data.decision_id,
        partner_code: 'acme-insure',
        blocked: true,
        changed_at: json(partnerBlocked).data.since,
        actor: { api_key_id: expect.any(String), user_id: null },
        log_index: expect.any(Number),
      });
      expect([...types].sort()).toEqual([
        'channel_change.recorded',
        'cookie_decision.recorded',
        'customer.erased',
        'decision.given',
        'decision.withdraw',
        'partner_block.recorded',
        'version.published',
      ]);
    } finally {
      await receiver.close();
    }
  });
});
