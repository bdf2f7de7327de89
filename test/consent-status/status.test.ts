/**
 * `POST /api/v1/consents/status` on both stores: many customers' standing on one template in one
 * call, as of a moment. Decisions, channel changes and partner blocks are placed on a fixed
 * timeline in the store (the service dates its records by its own clock), in 2030, after the
 * validity periods set now; every expected answer is written out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { createTenantChannel } from '../../src/channels/index.js';
import { eraseCustomer } from '../../src/erasure/service.js';
import { newId } from '../../src/platform/ids.js';
import { createProduct } from '../../src/products/index.js';
import { changeValidityAs } from '../../src/templates/actions.js';
import { getTemplateByCode } from '../../src/templates/service.js';
import { apiOf } from '../helpers/api.js';
import { expectErrorShape, json, startTestApp, subjectIdOf, type TestApp } from '../helpers/app.js';
import { insertDecisionAt } from '../helpers/decisions.js';
import { publish, type SeededTenant, seedTemplate, seedTenant, unique } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';

const path = '/api/v1/consents/status';

describe.each(stores)('consent status of many customers on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let b: SeededTenant;
  let productId: string;

  beforeAll(async () => {
    t = await startTestApp(store);
    a = await seedTenant(t.db);
    b = await seedTenant(t.db);
    const product = await t.db
      .transaction()
      .execute((trx) =>
        createProduct(trx, actor(a), a.tenant.id, { code: 'savings', name: 'Savings' }),
      );
    productId = product.id;
  });
  afterAll(async () => {
    await t.close();
  });

  function actor(tenant: SeededTenant) {
    return {
      tenantId: tenant.tenant.id,
      actorKind: 'tenant' as const,
      actor: 'setup',
      ip: '127.0.0.1',
      userAgent: null,
    };
  }

  /** A template of tenant `a` with one published version, and the validity period given. */
  async function template(months: number | null = null) {
    const code = await seedTemplate(t.db, a.tenant.id);
    if (months !== null) {
      await t.db.transaction().execute(async (trx) => {
        const row = await getTemplateByCode(trx, a.tenant.id, code);
        await changeValidityAs(trx, actor(a), row, months);
      });
    }
    const v = await publish(t.db, a.tenant.id, code, { tag: '1.0' });
    return { code, id: v.consent_version_id };
  }

  const decideAt = (
    customer: string,
    id: string,
    decision: 'given' | 'reject' | 'withdraw',
    at: string,
  ) =>
    insertDecisionAt(
      t,
      { tenantId: a.tenant.id, apiKeyId: a.apiKey.id },
      customer,
      id,
      decision,
      at,
    );

  function status(body: unknown, headers: Record<string, string> = a.headers) {
    return t.app.inject({
      method: 'POST',
      url: path,
      headers: { ...headers, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
  }

  async function customers(body: unknown) {
    const response = await status(body);
    expect(response.statusCode, response.body).toBe(200);
    return json(response).data.customers as Record<string, unknown>[];
  }

  async function subject(customer: string): Promise<string> {
    const id = await subjectIdOf(t, a.tenant.id, customer);
    if (!id) throw new Error(`no subject for ${customer}`);
    return id;
  }

  async function blockPartner(
    customer: string,
    decisionId: string,
    partner: string,
    blocked: boolean,
    at: string,
  ) {
    await t.db
      .insertInto('partner_block_changes')
      .values({
        tenant_id: a.tenant.id,
        id: newId(),
        subject_id: await subject(customer),
        decision_id: decisionId,
        partner_code: partner,
        blocked: blocked ? 1 : 0,
        api_key_id: a.apiKey.id,
        user_id: null,
        idempotency_key: null,
        personal: 'sealed',
        evidence_salt: 'salt',
        changed_at: at,
      })
      .execute();
  }

  async function changeChannel(customer: string, channel: string, blocked: boolean, at: string) {
    await t.db
      .insertInto('channel_changes')
      .values({
        tenant_id: a.tenant.id,
        id: newId(),
        subject_id: await subject(customer),
        product_id: productId,
        product_code: 'savings',
        channel,
        blocked: blocked ? 1 : 0,
        api_key_id: a.apiKey.id,
        user_id: null,
        idempotency_key: null,
        personal: 'sealed',
        evidence_salt: 'salt',
        changed_at: at,
      })
      .execute();
  }

  it('answers accepted, rejected, withdrawn and never-asked customers in the order asked, each once', async () => {
    const { code, id } = await template();
    const given = unique('given');
    const rejected = unique('rejected');
    const withdrawn = unique('withdrawn');
    const never = unique('never');
    const g = await decideAt(given, id, 'given', '2030-01-01T10:00:00.000Z');
    const r = await decideAt(rejected, id, 'reject', '2030-01-01T11:00:00.000Z');
    await decideAt(withdrawn, id, 'given', '2030-01-01T12:00:00.000Z');
    const w = await decideAt(withdrawn, id, 'withdraw', '2030-01-02T12:00:00.000Z');
    const response = await status({
      template_code: code,
      customer_ids: [never, given, rejected, given, withdrawn],
      at: '2030-06-01T00:00:00+02:00',
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const data = json(response).data;
    expect(data.template_code).toBe(code);
    expect(data.at).toBe('2030-05-31T22:00:00.000Z');
    const last = (decision_id: string, decision: string, decided_at: string) => ({
      decision_id,
      decision,
      decided_at,
      consent_version_id: id,
      version: 1,
    });
    // `accepted` is `as-of`'s: decided on the latest version, whatever the decision.
    expect(data.customers).toEqual([
      {
        customer_id: never,
        accepted: false,
        last_decision: null,
        blocked_partners: [],
        in_checkpoint: true,
      },
      {
        customer_id: given,
        accepted: true,
        last_decision: last(g, 'given', '2030-01-01T10:00:00.000Z'),
        blocked_partners: [],
        in_checkpoint: false,
      },
      {
        customer_id: rejected,
        accepted: true,
        last_decision: last(r, 'reject', '2030-01-01T11:00:00.000Z'),
        blocked_partners: [],
        in_checkpoint: false,
      },
      {
        customer_id: withdrawn,
        accepted: true,
        last_decision: last(w, 'withdraw', '2030-01-02T12:00:00.000Z'),
        blocked_partners: [],
        in_checkpoint: false,
      },
    ]);
  });

  it('as of a moment before any decision, and between two', async () => {
    const { code, id } = await template();
    const customer = unique('c');
    const first = await decideAt(customer, id, 'given', '2030-03-01T00:00:00.000Z');
    const second = await decideAt(customer, id, 'withdraw', '2030-04-01T00:00:00.000Z');
    const at = async (moment: string) =>
      (await customers({ template_code: code, customer_ids: [customer], at: moment }))[0];
    expect(await at('2030-02-28T23:59:59.999Z')).toMatchObject({
      accepted: false,
      last_decision: null,
    });
    expect(await at('2030-03-01T00:00:00.000Z')).toMatchObject({
      accepted: true,
      last_decision: { decision_id: first, decision: 'given' },
    });
    expect(await at('2030-03-15T00:00:00Z')).toMatchObject({
      accepted: true,
      last_decision: { decision_id: first, decision: 'given' },
    });
    expect(await at('2030-04-02T00:00:00Z')).toMatchObject({
      accepted: true,
      last_decision: { decision_id: second, decision: 'withdraw' },
    });
  });

  it('a given under a validity period of 12 months: the day before it lapses, the instant, the day after', async () => {
    const { code, id } = await template(12);
    const customer = unique('c');
    const decisionId = await decideAt(customer, id, 'given', '2030-07-01T09:00:00.000Z');
    const expected = (accepted: boolean, expired: boolean) => ({
      customer_id: customer,
      accepted,
      last_decision: {
        decision_id: decisionId,
        decision: 'given',
        decided_at: '2030-07-01T09:00:00.000Z',
        consent_version_id: id,
        version: 1,
      },
      expired,
      expires_at: '2031-07-01T09:00:00.000Z',
      blocked_partners: [],
      in_checkpoint: false,
    });
    for (const [moment, accepted, expired] of [
      ['2031-06-30T09:00:00.000Z', true, false],
      ['2031-07-01T08:59:59.999Z', true, false],
      ['2031-07-01T09:00:00.000Z', false, true],
      ['2031-07-02T09:00:00.000Z', false, true],
    ] as const) {
      expect(
        await customers({ template_code: code, customer_ids: [customer], at: moment }),
      ).toEqual([expected(accepted, expired)]);
    }
    // A customer never asked has nothing to lapse: no `expired`, as `as-of`.
    const never = unique('never');
    expect(
      await customers({
        template_code: code,
        customer_ids: [never],
        at: '2031-07-02T09:00:00.000Z',
      }),
    ).toEqual([
      {
        customer_id: never,
        accepted: false,
        last_decision: null,
        blocked_partners: [],
        in_checkpoint: true,
      },
    ]);
  });

  it('agrees with as-of for each customer: a decision on an older version is not accepted', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    await t.db.transaction().execute(async (trx) => {
      const row = await getTemplateByCode(trx, a.tenant.id, code);
      await changeValidityAs(trx, actor(a), row, 1);
    });
    const v1 = (await publish(t.db, a.tenant.id, code, { tag: '1.0' })).consent_version_id;
    const v2 = (await publish(t.db, a.tenant.id, code, { tag: '2.0' })).consent_version_id;
    const onOlder = unique('older');
    const lapsed = unique('lapsed');
    const renewed = unique('renewed');
    const rejected = unique('rejected');
    await decideAt(onOlder, v1, 'given', '2030-01-01T00:00:00.000Z');
    await decideAt(lapsed, v2, 'given', '2030-01-01T00:00:00.000Z');
    await decideAt(renewed, v2, 'given', '2030-01-01T00:00:00.000Z');
    await decideAt(renewed, v2, 'given', '2030-01-20T00:00:00.000Z');
    await decideAt(rejected, v2, 'reject', '2030-01-01T00:00:00.000Z');
    const moment = '2030-02-05T00:00:00.000Z';
    const ids = [onOlder, lapsed, renewed, rejected];
    const answers = await customers({ template_code: code, customer_ids: ids, at: moment });
    expect(
      answers.map(({ accepted, expired, expires_at }) => ({ accepted, expired, expires_at })),
    ).toEqual([
      { accepted: false, expired: undefined, expires_at: undefined },
      { accepted: false, expired: true, expires_at: '2030-02-01T00:00:00.000Z' },
      { accepted: true, expired: false, expires_at: '2030-02-20T00:00:00.000Z' },
      { accepted: true, expired: undefined, expires_at: undefined },
    ]);
    for (const [i, customer] of ids.entries()) {
      const asOf = await t.app.inject({
        method: 'GET',
        url: `/api/v1/customers/${customer}/consents/templates/${code}/as-of?at=${moment}`,
        headers: a.headers,
      });
      const { accepted, expired, expires_at, decision } = json(asOf).data;
      const mine = answers[i];
      expect({
        accepted: mine?.accepted,
        expired: mine?.expired,
        expires_at: mine?.expires_at,
      }).toEqual({ accepted, expired, expires_at });
      expect(mine?.last_decision).toMatchObject({ decision_id: decision.decision_id });
    }
  });

  it('the partners blocked on the decision in force, as of the moment', async () => {
    const { code, id } = await template();
    const customer = unique('c');
    const given = await decideAt(customer, id, 'given', '2030-01-01T00:00:00.000Z');
    await blockPartner(customer, given, 'zeta_ads', true, '2030-02-01T00:00:00.000Z');
    await blockPartner(customer, given, 'acme_mail', true, '2030-03-01T00:00:00.000Z');
    await blockPartner(customer, given, 'zeta_ads', false, '2030-04-01T00:00:00.000Z');
    const blockedAt = async (moment: string) =>
      (await customers({ template_code: code, customer_ids: [customer], at: moment }))[0]
        ?.blocked_partners;
    expect(await blockedAt('2030-01-15T00:00:00Z')).toEqual([]);
    expect(await blockedAt('2030-02-01T00:00:00Z')).toEqual(['zeta_ads']);
    expect(await blockedAt('2030-03-15T00:00:00Z')).toEqual(['acme_mail', 'zeta_ads']);
    expect(await blockedAt('2030-04-15T00:00:00Z')).toEqual(['acme_mail']);
    // A later decision is another decision: the blocks on the earlier one are not its.
    await decideAt(customer, id, 'given', '2030-05-01T00:00:00.000Z');
    expect(await blockedAt('2030-05-15T00:00:00Z')).toEqual([]);
  });

  it("a product's channel, allowed or blocked as of the moment; never changed is allowed", async () => {
    const { code, id } = await template();
    const customer = unique('c');
    const never = unique('never');
    await decideAt(customer, id, 'given', '2030-01-01T00:00:00.000Z');
    await changeChannel(customer, 'sms', true, '2030-02-01T00:00:00.000Z');
    await changeChannel(customer, 'sms', false, '2030-03-01T00:00:00.000Z');
    await changeChannel(customer, 'email', true, '2030-02-01T00:00:00.000Z');
    const channelAt = async (channel: string, moment: string, who = customer) =>
      (
        await customers({
          template_code: code,
          customer_ids: [who],
          channel: { product_code: 'savings', channel },
          at: moment,
        })
      )[0]?.channel;
    expect(await channelAt('sms', '2030-01-15T00:00:00Z')).toEqual({
      product_code: 'savings',
      channel: 'sms',
      allowed: true,
      since: null,
    });
    expect(await channelAt('sms', '2030-02-15T00:00:00Z')).toEqual({
      product_code: 'savings',
      channel: 'sms',
      allowed: false,
      since: '2030-02-01T00:00:00.000Z',
    });
    expect(await channelAt('sms', '2030-03-01T00:00:00Z')).toEqual({
      product_code: 'savings',
      channel: 'sms',
      allowed: true,
      since: '2030-03-01T00:00:00.000Z',
    });
    expect(await channelAt('email', '2030-03-01T00:00:00Z')).toMatchObject({ allowed: false });
    expect(await channelAt('post', '2030-03-01T00:00:00Z')).toMatchObject({
      allowed: true,
      since: null,
    });
    expect(await channelAt('email', '2030-03-01T00:00:00Z', never)).toEqual({
      product_code: 'savings',
      channel: 'email',
      allowed: true,
      since: null,
    });
    // Without `channel` asked, no `channel` in the answer.
    const [plain] = await customers({ template_code: code, customer_ids: [customer] });
    expect(plain).not.toHaveProperty('channel');
  });

  it("covers the answer with the log's signed checkpoint, the one the log itself serves", async () => {
    const { code, id } = await template();
    const customer = unique('c');
    const api = apiOf(t.app, a.headers);
    expect((await api.decide(customer, id, 'given')).statusCode).toBe(201);
    const response = await status({ template_code: code, customer_ids: [customer] });
    expect(response.statusCode, response.body).toBe(200);
    const data = json(response).data;
    expect(data.customers[0]).toMatchObject({ accepted: true, in_checkpoint: true });
    const served = await t.app.inject({
      method: 'GET',
      url: '/api/v1/log/checkpoint',
      headers: a.headers,
    });
    const checkpoint = json(served).data;
    expect(data.checkpoint).toEqual(checkpoint);
    expect(checkpoint.size).toBeGreaterThanOrEqual(1);
    expect(data.checkpoint.checkpoint).toContain(`\n${checkpoint.size}\n`);
  });

  it('an erased customer answers as never asked', async () => {
    const { code, id } = await template();
    const customer = unique('c');
    await decideAt(customer, id, 'given', '2030-01-01T00:00:00.000Z');
    const erased = await eraseCustomer(t.db, t.vault, registry, a.tenant.id, customer, {
      actorKind: 'operator',
      actor: 'test',
      ip: 'local',
      userAgent: null,
    });
    expect(erased.erased).toBe(true);
    expect(await customers({ template_code: code, customer_ids: [customer] })).toEqual([
      {
        customer_id: customer,
        accepted: false,
        last_decision: null,
        blocked_partners: [],
        in_checkpoint: true,
      },
    ]);
  });

  it("another tenant's customers answer as never asked, and its templates are unknown", async () => {
    const { code, id } = await template();
    const customer = unique('c');
    await decideAt(customer, id, 'given', '2030-01-01T00:00:00.000Z');
    const otherCode = await seedTemplate(t.db, b.tenant.id);
    await publish(t.db, b.tenant.id, otherCode, { tag: '1.0' });
    const asB = await status({ template_code: otherCode, customer_ids: [customer] }, b.headers);
    expect(asB.statusCode, asB.body).toBe(200);
    expect(json(asB).data.customers).toEqual([
      {
        customer_id: customer,
        accepted: false,
        last_decision: null,
        blocked_partners: [],
        in_checkpoint: true,
      },
    ]);
    const aTemplate = await status({ template_code: code, customer_ids: [customer] }, b.headers);
    expect(aTemplate.statusCode).toBe(404);
    expect(expectErrorShape(aTemplate).code).toBe('1004');
  });

  describe('refusals', () => {
    let code: string;
    beforeAll(async () => {
      code = (await template()).code;
    });

    it.each([
      ['no body fields', {}],
      ['an empty list', { template_code: 'x', customer_ids: [] }],
      ['a customer id that is not one', { template_code: 'x', customer_ids: ['ok', 'not ok'] }],
      ['an id too long', { template_code: 'x', customer_ids: ['a'.repeat(129)] }],
      [
        'a timestamp without a zone',
        { template_code: 'x', customer_ids: ['a'], at: '2030-01-01T00:00:00' },
      ],
      [
        'an impossible date',
        { template_code: 'x', customer_ids: ['a'], at: '2030-02-30T00:00:00Z' },
      ],
      ['an unknown field', { template_code: 'x', customer_ids: ['a'], extra: 1 }],
      [
        'a channel without a product',
        { template_code: 'x', customer_ids: ['a'], channel: { channel: 'sms' } },
      ],
    ])('%s: 400 1001', async (_, body) => {
      const response = await status(body);
      expect(response.statusCode, response.body).toBe(400);
      expect(expectErrorShape(response).code).toBe('1001');
    });

    it('malformed JSON: 400 1001', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: path,
        headers: { ...a.headers, 'content-type': 'application/json' },
        payload: '{"template_code":',
      });
      expect(response.statusCode).toBe(400);
      expect(expectErrorShape(response).code).toBe('1001');
    });

    it('1,000 ids are answered; 1,001 are 413 1006, whose details say the limit', async () => {
      const ids = Array.from({ length: 1000 }, (_, i) => `customer-${String(i).padStart(4, '0')}`);
      const answered = await customers({ template_code: code, customer_ids: ids });
      expect(answered.map((c) => c.customer_id)).toEqual(ids);
      const response = await status({ template_code: code, customer_ids: [...ids, 'one-more'] });
      expect(response.statusCode).toBe(413);
      expect(JSON.parse(response.body)).toEqual({
        code: '1006',
        message: 'Payload too large.',
        details: [{ field: 'body.customer_ids', issue: 'at most 1000 ids in one request' }],
      });
    });

    it('the OpenAPI document states the limits: customer_ids has 1 to 1000 items, and the 413 says 256 KiB', async () => {
      const doc = json(await t.app.inject({ method: 'GET', url: '/api/docs/json' }));
      const body =
        doc.paths['/api/v1/consents/status'].post.requestBody.content['application/json'].schema;
      expect(body.properties.customer_ids).toMatchObject({ minItems: 1, maxItems: 1000 });
      // Its own body limit, not the 16 KiB of other bodies.
      expect(doc.paths['/api/v1/consents/status'].post.responses['413'].description).toBe(
        'Payload too large: more than 1000 ids, or a body over 256 KiB: code 1006 (`Payload too large.`).',
      );
    });

    it('an unknown template, product or channel: 404 1004', async () => {
      for (const body of [
        { template_code: 'no_such_template', customer_ids: ['a'] },
        {
          template_code: code,
          customer_ids: ['a'],
          channel: { product_code: 'nope', channel: 'sms' },
        },
        {
          template_code: code,
          customer_ids: ['a'],
          channel: { product_code: 'savings', channel: 'fax' },
        },
      ]) {
        const response = await status(body);
        expect(response.statusCode, response.body).toBe(404);
        expect(expectErrorShape(response).code).toBe('1004');
      }
    });

    it("a channel of the tenant's own is asked like the five; another tenant's is 404 1004", async () => {
      await t.db.transaction().execute((trx) =>
        createTenantChannel(
          trx,
          {
            actorKind: 'operator',
            actor: 'test',
            ip: 'local',
            userAgent: null,
            tenantId: a.tenant.id,
          },
          a.tenant.id,
          { code: 'whatsapp', name: 'WhatsApp' },
        ),
      );
      const blocked = await t.app.inject({
        method: 'PUT',
        url: '/api/v1/customers/own-channel/channels/savings/whatsapp',
        headers: { ...a.headers, 'content-type': 'application/json' },
        payload: JSON.stringify({ blocked: true }),
      });
      expect(blocked.statusCode, blocked.body).toBe(201);
      const answer = await status({
        template_code: code,
        customer_ids: ['own-channel'],
        channel: { product_code: 'savings', channel: 'whatsapp' },
      });
      expect(answer.statusCode, answer.body).toBe(200);
      expect(json(answer).data.customers[0].channel).toEqual({
        product_code: 'savings',
        channel: 'whatsapp',
        allowed: false,
        since: json(blocked).data.since,
      });
      const theirs = await status(
        {
          template_code: code,
          customer_ids: ['own-channel'],
          channel: { product_code: 'savings', channel: 'whatsapp' },
        },
        b.headers,
      );
      expect(theirs.statusCode).toBe(404);
    });

    it('without an API key: 401 1002', async () => {
      const response = await status({ template_code: code, customer_ids: ['a'] }, {});
      expect(response.statusCode).toBe(401);
      expect(expectErrorShape(response).code).toBe('1002');
    });
  });
});
