import {
  ConsentApiError,
  type ConsentClient,
  type ConsentErrorCode,
  createConsentClient,
  errorCodes,
  responseOf,
  verifyWebhook,
  type WebhookEvent,
} from '@consent-service/client';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { registry } from '../../../src/app/kinds.js';
import { createPartner } from '../../../src/partners/index.js';
import { publishOutsideReview } from '../../../src/templates/index.js';
import { createEndpoint } from '../../../src/webhooks/service.js';
import { publish, seedTemplate, unique } from '../../../test/helpers/seed.js';
import { storeAgnostic } from '../../../test/helpers/stores.js';
import {
  byCli,
  eventually,
  fastWebhooks,
  startReceiver,
} from '../../../test/helpers/webhook-receiver.js';
import { startProxy, type TestProxy } from './helpers/proxy.js';
import { type ServedTenant, serveTenant } from './helpers/server.js';

/** The rate limit the service is started with here: every answer past the key check tells it. */
const perMinute = 5000;

describe.each(storeAgnostic)('what the client tells of the answers, on $name', (store) => {
  let served: ServedTenant;
  let proxy: TestProxy;
  let client: ConsentClient;

  beforeAll(async () => {
    served = await serveTenant(store, {
      ...fastWebhooks,
      RATE_LIMIT_PER_MINUTE: String(perMinute),
    });
    proxy = await startProxy(served.baseUrl);
    client = createConsentClient({ baseUrl: proxy.url, apiKey: served.apiKey });
  });
  afterAll(async () => {
    await proxy?.close();
    await served?.close();
  });
  beforeEach(() => {
    proxy.seen.length = 0;
    proxy.plan();
  });

  /** A new partner, and a release of a new template whose text lists it, published. */
  async function partnerRelease() {
    const by = {
      tenantId: served.tenant.tenant.id,
      actorKind: 'operator',
      actor: 'test',
      ip: 'local',
      userAgent: null,
    } as const;
    const partner = unique('p')
      .toLowerCase()
      .replace(/[^a-z0-9-]/g, '-');
    await served.t.db
      .transaction()
      .execute((trx) => createPartner(trx, by, by.tenantId, { code: partner, name: 'Partner' }));
    const code = await seedTemplate(served.t.db, by.tenantId);
    const version = await served.t.db
      .transaction()
      .execute((trx) =>
        publishOutsideReview(
          trx,
          by,
          by.tenantId,
          code,
          { tag: '1.0', content_html: '<p>Shared</p>' },
          { partners: [partner] },
        ),
      );
    return { partner, version };
  }

  const given = () => ({
    consent_version_id: served.version.consent_version_id,
    decision: 'given' as const,
  });

  it('decide() says recorded, then unchanged, then replayed for a key seen before', async () => {
    const code = await seedTemplate(served.t.db, served.tenant.tenant.id);
    const version = await publish(served.t.db, served.tenant.tenant.id, code, {
      allow_reconsent: false,
    });
    const customer = unique('c');
    const body = { consent_version_id: version.consent_version_id, decision: 'given' as const };
    const recorded = await client.decide(customer, body);
    expect(recorded.outcome).toBe('recorded');
    expect(recorded.response.status).toBe(201);
    const unchanged = await client.decide(customer, body);
    expect(unchanged.outcome).toBe('unchanged');
    expect(unchanged.response.status).toBe(200);
    expect(unchanged).toEqual(recorded);

    const idempotencyKey = unique('job');
    const other = unique('c');
    const first = await client.decide(other, body, { idempotencyKey });
    const again = await client.decide(other, body, { idempotencyKey });
    expect([first.outcome, again.outcome]).toEqual(['recorded', 'replayed']);
    expect(again).toEqual(first);
    // The result is still D alone, as before: the outcome and the answer are not enumerated.
    expect(Object.keys(again).sort()).toEqual(Object.keys(first).sort());
    expect(JSON.parse(JSON.stringify(again))).not.toHaveProperty('outcome');
  });

  it('decide() tried again after a lost answer says recorded: the replay is of its own try', async () => {
    proxy.plan({ kind: 'forward-then-drop' });
    const decision = await client.decide(unique('c'), given());
    expect(proxy.seen).toHaveLength(2);
    expect(proxy.seen[1]?.upstream?.headers['idempotent-replayed']).toBe('true');
    expect(decision.outcome).toBe('recorded');
  });

  it('a refusal replayed by its key is thrown with replayed: true', async () => {
    const idempotencyKey = unique('job');
    const customer = unique('c');
    const withdraw = { ...given(), decision: 'withdraw' as const };
    const first = await client.decide(customer, withdraw, { idempotencyKey }).catch((e) => e);
    const again = await client.decide(customer, withdraw, { idempotencyKey }).catch((e) => e);
    expect(first).toBeInstanceOf(ConsentApiError);
    expect(again).toMatchObject({ status: 409, code: '1005', replayed: true });
    expect(first.replayed).toBe(false);
  });

  it('every result tells its request id and the rate limit of the key', async () => {
    const version = await client.latest(served.code);
    const info = responseOf(version);
    expect(info?.requestId).toBe(proxy.seen[0]?.upstream?.headers['x-request-id']);
    expect(info?.requestId).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
    expect(version.response.rateLimit).toEqual({
      limit: perMinute,
      remaining: expect.any(Number),
      resetSeconds: expect.any(Number),
    });
    expect(version.response.rateLimit?.remaining).toBeLessThan(perMinute);
    const pending = await client.pending(unique('c'), served.code);
    expect(pending.response.requestId).toEqual(expect.any(String));
    expect(pending.response.requestId).not.toBe(info?.requestId);
    // The health check is not limited: it tells no rate limit.
    expect((await client.health()).response.rateLimit).toBeUndefined();
  });

  it('latest() asks again with If-None-Match and answers a 304 from what it kept', async () => {
    const code = await seedTemplate(served.t.db, served.tenant.tenant.id);
    const first = await publish(served.t.db, served.tenant.tenant.id, code);
    const fresh = await client.latest(code);
    expect(fresh).toEqual(first);
    expect(fresh.response.status).toBe(200);
    const kept = await client.latest(code);
    expect(kept).toEqual(first);
    expect(kept.response.status).toBe(304);
    expect(proxy.seen[0]?.headers['if-none-match']).toBeUndefined();
    expect(proxy.seen[1]?.headers['if-none-match']).toBe(proxy.seen[0]?.upstream?.headers.etag);
    expect(proxy.seen[1]?.upstream?.status).toBe(304);
    // A new version: the tag no longer matches, and the client answers the new one.
    const second = await publish(served.t.db, served.tenant.tenant.id, code);
    await expect
      .poll(async () => (await client.latest(code)).consent_version_id)
      .toBe(second.consent_version_id);
    // Another locale is kept apart.
    expect((await client.latest(code, { locale: 'th' })).response.status).toBe(200);
  });

  it('history() pages through every decision, newest first; consentPages() gives the pages', async () => {
    const customer = unique('c');
    const made = [];
    for (const decision of ['given', 'withdraw', 'given', 'withdraw', 'given'] as const) {
      made.push(await client.decide(customer, { ...given(), decision }));
    }
    const entries = [];
    for await (const entry of client.history(customer, { limit: 2 })) entries.push(entry);
    expect(entries.map((entry) => entry.decision_id)).toEqual(
      made.map((decision) => decision.decision_id).reverse(),
    );
    const pages = [];
    for await (const page of client.consentPages(customer, { limit: 2 })) pages.push(page);
    expect(pages.map((page) => page.history.length)).toEqual([2, 2, 1]);
    expect(pages.at(-1)?.next_cursor).toBeNull();
    expect(pages[0]?.response.requestId).toEqual(expect.any(String));
    const limits = proxy.seen.filter((seen) => seen.url.includes('limit=2'));
    expect(limits).toHaveLength(6);
    const cursor = pages[0]?.next_cursor ?? undefined;
    const second = await client.consents(customer, { limit: 2, ...(cursor ? { cursor } : {}) });
    expect(second.history).toEqual(pages[1]?.history);
  });

  it('asOf() answers what was in force at a moment, a Date or a string', async () => {
    const customer = unique('c');
    const before = new Date();
    await eventually(() => Date.now() > before.getTime());
    const decision = await client.decide(customer, given());
    const then = await client.asOf(customer, served.code, before);
    expect(then.decision).toBeNull();
    const now = await client.asOf(customer, served.code, new Date().toISOString());
    expect(now.decision?.decision_id).toBe(decision.decision_id);
    expect(now.accepted).toBe(true);
  });

  it('consentStatus() answers many customers in the order asked, a moment as a Date or a string', async () => {
    const customer = unique('c');
    const never = unique('never');
    const before = new Date();
    await eventually(() => Date.now() > before.getTime());
    const decision = await client.decide(customer, given());
    const now = await client.consentStatus({
      template_code: served.code,
      customer_ids: [never, customer],
    });
    expect(now.customers.map((c) => [c.customer_id, c.accepted])).toEqual([
      [never, false],
      [customer, true],
    ]);
    expect(now.customers[1]?.last_decision?.decision_id).toBe(decision.decision_id);
    expect(now.checkpoint.size).toBeGreaterThan(0);
    const then = await client.consentStatus({
      template_code: served.code,
      customer_ids: [customer],
      at: before,
    });
    expect(then.customers[0]?.last_decision).toBeNull();
    const refused = (await client
      .consentStatus({ template_code: served.code, customer_ids: [] })
      .catch((e) => e)) as ConsentApiError;
    expect(refused.code).toBe('1001');
  });

  /** The customer ids of each bulk status request the service was sent, in order. */
  const statusRequests = () =>
    proxy.seen
      .filter((s) => s.method === 'POST' && s.url === '/api/v1/consents/status')
      .map((s) => (JSON.parse(s.body) as { customer_ids: string[] }).customer_ids);

  it('consentStatus() of 2,500 ids sends requests of at most 1,000 and answers as the three calls would, in one answer', async () => {
    const ids = Array.from({ length: 2500 }, (_, i) => `${unique('bulk')}-${i}`);
    // Decided customers in each part, their decisions in the log before anything is asked.
    for (const at of [0, 1200, 2499]) {
      const decision = await client.decide(ids[at] as string, given());
      expect(await client.receipt(decision.decision_id, { wait: true })).not.toHaveProperty(
        'status',
        'queued',
      );
    }
    proxy.seen.length = 0;
    const merged = await client.consentStatus({ template_code: served.code, customer_ids: ids });
    const sent = statusRequests();
    expect(sent.map((part) => part.length)).toEqual([1000, 1000, 500]);
    expect(sent.flat()).toEqual(ids);
    const parts = [];
    for (const part of sent) {
      parts.push(
        await client.consentStatus({
          template_code: served.code,
          customer_ids: part,
          at: merged.at,
        }),
      );
    }
    expect(Object.keys(merged).sort()).toEqual(Object.keys(parts[0] ?? {}).sort());
    expect(merged.template_code).toBe(served.code);
    expect(merged.customers).toEqual(parts.flatMap((part) => part.customers));
    expect(merged.customers.map((c) => c.customer_id)).toEqual(ids);
    expect(merged.customers.filter((c) => c.accepted).map((c) => c.customer_id)).toEqual([
      ids[0],
      ids[1200],
      ids[2499],
    ]);
    expect(merged.checkpoint).toEqual(parts[2]?.checkpoint);
    expect(responseOf(merged)?.status).toBe(200);
  });

  it('consentStatus() of more than 1,000 ids asks each id once, and one refused part refuses the call, naming the id by its place in the list', async () => {
    const ids = Array.from({ length: 1001 }, (_, i) => `${unique('twice')}-${i}`);
    ids[1000] = ids[0] as string;
    const once = await client.consentStatus({ template_code: served.code, customer_ids: ids });
    expect(statusRequests().map((part) => part.length)).toEqual([1000]);
    expect(once.customers.map((c) => c.customer_id)).toEqual(ids.slice(0, 1000));

    proxy.seen.length = 0;
    const bad = Array.from({ length: 2500 }, (_, i) => `${unique('bad')}-${i}`);
    bad[1500] = 'not an id';
    const refused = (await client
      .consentStatus({ template_code: served.code, customer_ids: bad })
      .catch((e) => e)) as ConsentApiError;
    expect(refused).toBeInstanceOf(ConsentApiError);
    expect(refused.status).toBe(400);
    expect(refused.code).toBe('1001');
    expect(refused.details?.map((d) => d.field)).toEqual(['body.customer_ids.1500']);
    // The parts go one after another: none is sent after the refused one.
    expect(statusRequests().map((part) => part.length)).toEqual([1000, 1000]);
  });

  it('setChannel(), channels(), setPartnerBlock() and partnerBlocks() change and read the controls, with their receipts', async () => {
    const customer = unique('c');
    const blocked = await client.setChannel(
      customer,
      { productCode: 'general', channel: 'sms' },
      true,
      { idempotencyKey: unique('sms') },
    );
    expect(blocked.outcome).toBe('recorded');
    expect(blocked).toMatchObject({ product_code: 'general', channel: 'sms', blocked: true });
    const again = await client.setChannel(
      customer,
      { productCode: 'general', channel: 'sms' },
      true,
    );
    expect(again.outcome).toBe('unchanged');
    const listed = await client.channels(customer);
    expect(listed.filter((c) => c.blocked).map((c) => `${c.product_code}/${c.channel}`)).toEqual([
      'general/sms',
    ]);
    const channelReceipt = await client.channelReceipt(blocked.record_id ?? '', { wait: true });
    expect('channel_change' in channelReceipt && channelReceipt.channel_change.channel).toBe('sms');

    const { partner, version } = await partnerRelease();
    const decision = await client.decide(customer, {
      consent_version_id: version.id,
      decision: 'given',
    });
    const block = await client.setPartnerBlock(
      customer,
      { decisionId: decision.decision_id, partnerCode: partner },
      true,
    );
    expect(block.outcome).toBe('recorded');
    expect(await client.partnerBlocks(customer, decision.decision_id)).toEqual([
      {
        partner_code: partner,
        name: 'Partner',
        blocked: true,
        since: block.since,
        record_id: block.record_id,
      },
    ]);
    const partnerReceipt = await client.partnerBlockReceipt(block.record_id ?? '', { wait: true });
    expect('partner_block' in partnerReceipt && partnerReceipt.partner_block.partner_code).toBe(
      partner,
    );
    const refused = (await client
      .setPartnerBlock(customer, { decisionId: decision.decision_id, partnerCode: 'nobody' }, true)
      .catch((e) => e)) as ConsentApiError;
    expect(refused.code).toBe('1004');
  });

  it('setChannel() and setPartnerBlock() say replayed when their key is used again, as the service answers (Idempotent-Replayed)', async () => {
    const customer = unique('c');
    const channelKey = unique('email');
    const target = { productCode: 'general', channel: 'email' };
    const first = await client.setChannel(customer, target, true, { idempotencyKey: channelKey });
    const retried = await client.setChannel(customer, target, true, { idempotencyKey: channelKey });
    expect([first.outcome, retried.outcome]).toEqual(['recorded', 'replayed']);
    expect(proxy.seen.at(-1)?.upstream?.headers['idempotent-replayed']).toBe('true');
    expect(retried.record_id).toBe(first.record_id);

    const { partner, version } = await partnerRelease();
    const decision = await client.decide(customer, {
      consent_version_id: version.id,
      decision: 'given',
    });
    const blockKey = unique('block');
    const on = { decisionId: decision.decision_id, partnerCode: partner };
    const block = await client.setPartnerBlock(customer, on, true, { idempotencyKey: blockKey });
    const again = await client.setPartnerBlock(customer, on, true, { idempotencyKey: blockKey });
    expect([block.outcome, again.outcome]).toEqual(['recorded', 'replayed']);
    expect(again.record_id).toBe(block.record_id);
  });

  it('error codes are the literal union of the catalogue', async () => {
    expect([...errorCodes].sort()).toEqual(
      [
        '1000',
        '1001',
        '1002',
        '1004',
        '1005',
        '1006',
        '1007',
        '1008',
        '1009',
        '1010',
        '1011',
      ].sort(),
    );
    const error = (await client.latest(unique('missing')).catch((e) => e)) as ConsentApiError;
    expect(error).toBeInstanceOf(ConsentApiError);
    const code: ConsentErrorCode | undefined = error.code;
    expect(code).toBe('1004');
  });

  it('verifyWebhook() checks a real delivery and types its event, under any of the secrets', async () => {
    const receiver = await startReceiver();
    try {
      const tenantId = served.tenant.tenant.id;
      const { secret } = await createEndpoint(
        served.t.db,
        served.t.vault,
        served.t.config.webhooks,
        registry,
        byCli(tenantId),
        { url: receiver.url, events: ['decision.given'] },
      );
      const customer = unique('c');
      const decision = await client.decide(customer, given());
      await eventually(() => receiver.received.length >= 1);
      const got = receiver.received[0]!;
      const old = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
      const { event, id, position } = verifyWebhook(got.body, got.headers, [old, secret]);
      expect(id).toBe(got.headers['webhook-id']);
      expect(position).toBe(Number(got.headers['webhook-position']));
      const typed: WebhookEvent = event;
      if (typed.type !== 'decision.given') throw new Error(`got ${typed.type}`);
      expect(typed.data).toEqual({ ...decision, log_index: expect.any(Number) });

      // Two signatures in the header, as while the service signs with an old and a new secret:
      // one that verifies is enough, whichever comes first.
      const theirs = new Webhook(old).sign(
        String(got.headers['webhook-id']),
        new Date(Number(got.headers['webhook-timestamp']) * 1000),
        got.body,
      );
      const both = {
        ...got.headers,
        'webhook-signature': `${theirs} ${got.headers['webhook-signature']}`,
      };
      expect(verifyWebhook(got.body, both, secret).event.type).toBe('decision.given');
      const fetched = new Headers();
      for (const [name, value] of Object.entries(both)) {
        if (typeof value === 'string') fetched.set(name, value);
      }
      expect(verifyWebhook(got.body, fetched, old).id).toBe(id);

      expect(() =>
        verifyWebhook(got.body.replace(customer, 'someone'), got.headers, secret),
      ).toThrow();
      expect(() => verifyWebhook(got.body, got.headers, old)).toThrow();
    } finally {
      await receiver.close();
    }
  });
});
