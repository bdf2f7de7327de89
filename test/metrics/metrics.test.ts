import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiOf } from '../helpers/api.js';
import { expectErrorShape, startTestApp, type TestApp } from '../helpers/app.js';
import { parseScrape } from '../helpers/prometheus.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';

const token = 'scrape-token-0123456789abcdef';
const latestRoute = '/api/v1/consent-templates/:template_code/latest';

describe.each(stores)('GET /metrics with METRICS_TOKEN on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let code: string;

  beforeAll(async () => {
    t = await startTestApp(store, { METRICS_TOKEN: token });
    a = await seedTenant(t.db);
    code = await seedTemplate(t.db, a.tenant.id);
    await publish(t.db, a.tenant.id, code);
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
    expect(response.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    return parseScrape(response.body);
  };

  it('answers the Prometheus text format, which a parser reads, with the documented names', async () => {
    const s = await scrape();
    for (const [name, type] of [
      ['http_requests_total', 'COUNTER'],
      ['http_request_duration_seconds', 'HISTOGRAM'],
      ['consent_decisions_total', 'COUNTER'],
      ['consent_decision_write_seconds', 'HISTOGRAM'],
      ['consent_store_query_duration_seconds', 'HISTOGRAM'],
      ['consent_decision_batch_size', 'HISTOGRAM'],
      ['consent_cache_hits_total', 'COUNTER'],
      ['consent_cache_misses_total', 'COUNTER'],
      ['consent_log_queued_leaves', 'GAUGE'],
      ['consent_log_oldest_queued_leaf_age_seconds', 'GAUGE'],
      ['process_cpu_seconds_total', 'COUNTER'],
      ['nodejs_eventloop_lag_seconds', 'GAUGE'],
    ]) {
      expect(s.type(name as string), name).toBe(type);
    }
  });

  it('has the webhook attempts at 0 for each outcome before any attempt (no endpoint here)', async () => {
    const s = await scrape();
    expect(s.value('consent_webhook_attempts_total', { outcome: 'delivered' })).toBe(0);
    expect(s.value('consent_webhook_attempts_total', { outcome: 'failed' })).toBe(0);
  });

  it('counts 3 latest calls as exactly 3 on the route pattern, never the raw URL', async () => {
    const api = apiOf(t.app, a.headers, 'inject');
    const labels = { method: 'GET', route: latestRoute, status_code: '200' };
    // One call first, so that the series exists and the key is in the rate limit's window.
    const before = (await scrape()).value('http_requests_total', labels) ?? 0;
    for (let i = 0; i < 3; i += 1) expect((await api.latest(code)).statusCode).toBe(200);
    const after = await scrape();
    expect(after.value('http_requests_total', labels)).toBe(before + 3);
    expect(after.histogram('http_request_duration_seconds', labels)?.count).toBe(before + 3);
    expect(after.text).not.toContain(code);
  });

  it('counts requests that matched no route under one series, whatever their URL', async () => {
    const labels = { method: 'GET', route: 'unmatched', status_code: '404' };
    const before = (await scrape()).value('http_requests_total', labels) ?? 0;
    for (const url of ['/no-such-path', '/api/no/such/path?x=1']) {
      expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(404);
    }
    const after = await scrape();
    expect(after.value('http_requests_total', labels)).toBe(before + 2);
    expect(after.text).not.toContain('no-such-path');
  });

  it('counts decisions by value and outcome, and times their writes', async () => {
    const other = await seedTenant(t.db);
    const tenantCode = await seedTemplate(t.db, other.tenant.id);
    const v = (await publish(t.db, other.tenant.id, tenantCode)).consent_version_id;
    const api = apiOf(t.app, other.headers, 'inject');
    const before = await scrape();
    const count = (decision: string, outcome: string, s = before) =>
      s.value('consent_decisions_total', { decision, outcome }) ?? 0;
    expect((await api.decide('c-1', v, 'given')).statusCode).toBe(201);
    expect((await api.decide('c-2', v, 'reject')).statusCode).toBe(201);
    // Nothing to withdraw: refused by the rules (409 1005).
    expect((await api.decide('c-3', v, 'withdraw')).statusCode).toBe(409);
    const after = await scrape();
    expect(count('given', 'recorded', after)).toBe(count('given', 'recorded') + 1);
    expect(count('reject', 'recorded', after)).toBe(count('reject', 'recorded') + 1);
    expect(count('withdraw', 'refused', after)).toBe(count('withdraw', 'refused') + 1);
    const writes = (s: typeof before) => s.histogram('consent_decision_write_seconds')?.count ?? 0;
    expect(writes(after)).toBe(writes(before) + 3);
  });

  it('counts a replayed key, a reused key and an unchanged decision by their outcomes', async () => {
    const other = await seedTenant(t.db);
    const tenantCode = await seedTemplate(t.db, other.tenant.id);
    const v = (await publish(t.db, other.tenant.id, tenantCode, { allow_reconsent: false }))
      .consent_version_id;
    const api = apiOf(t.app, other.headers, 'inject');
    const before = await scrape();
    const count = (decision: string, outcome: string, s = before) =>
      s.value('consent_decisions_total', { decision, outcome }) ?? 0;
    const key = { 'idempotency-key': 'metrics-outcomes-key' };
    expect((await api.decide('c-o', v, 'given', key)).statusCode).toBe(201);
    // The same request again: its stored answer (contract: idempotency).
    expect((await api.decide('c-o', v, 'given', key)).statusCode).toBe(201);
    // The key again for another request: 422 1010.
    expect((await api.decide('c-o', v, 'reject', key)).statusCode).toBe(422);
    // The same decision again on a version without re-consent: 200, nothing stored.
    expect((await api.decide('c-o', v, 'given')).statusCode).toBe(200);
    const after = await scrape();
    expect(count('given', 'recorded', after)).toBe(count('given', 'recorded') + 1);
    expect(count('given', 'replayed', after)).toBe(count('given', 'replayed') + 1);
    expect(count('reject', 'refused', after)).toBe(count('reject', 'refused') + 1);
    expect(count('given', 'unchanged', after)).toBe(count('given', 'unchanged') + 1);
  });

  it('sees a burst of decisions committed in batches: the batch sizes add up to the burst', async () => {
    const other = await seedTenant(t.db);
    const tenantCode = await seedTemplate(t.db, other.tenant.id);
    const v = (await publish(t.db, other.tenant.id, tenantCode)).consent_version_id;
    const api = apiOf(t.app, other.headers, 'inject');
    const before = (await scrape()).histogram('consent_decision_batch_size');
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => api.decide(`burst-${i}`, v, 'given')),
    );
    expect(answers.map((r) => r.statusCode)).toEqual(Array(20).fill(201));
    const after = (await scrape()).histogram('consent_decision_batch_size');
    expect(after?.sum).toBe((before?.sum ?? 0) + 20);
    expect(after?.count).toBeGreaterThan(before?.count ?? 0);
    expect(after?.count).toBeLessThanOrEqual((before?.count ?? 0) + 20);
  });

  it('shows the integrator backlog and the store query times', async () => {
    const s = await scrape();
    const labels = { store: store.name === 'postgres' ? 'postgresql' : 'sqlite' };
    expect(s.value('consent_log_queued_leaves', labels)).toBeGreaterThanOrEqual(0);
    expect(s.value('consent_log_oldest_queued_leaf_age_seconds', labels)).toBeGreaterThanOrEqual(0);
    expect(s.histogram('consent_store_query_duration_seconds')?.count).toBeGreaterThan(0);
  });

  it('when the backlogs cannot be read, still answers 200, their gauges without a sample', async () => {
    const labels = { store: store.name === 'postgres' ? 'postgresql' : 'sqlite' };
    const gauges = [
      'consent_log_queued_leaves',
      'consent_log_oldest_queued_leaf_age_seconds',
      'consent_webhook_unsequenced_events',
      'consent_webhook_backlog_positions',
      'consent_webhook_failing_endpoints',
      'consent_webhook_disabled_endpoints',
    ];
    const before = await scrape();
    for (const name of gauges) expect(before.value(name, labels), name).toBeGreaterThanOrEqual(0);
    // The queries fail for real: a table each reads is gone for the time of one scrape.
    await sql`alter table tlog_pending rename to tlog_pending_away`.execute(t.db);
    await sql`alter table webhook_sequence rename to webhook_sequence_away`.execute(t.db);
    try {
      const s = await scrape();
      for (const name of gauges) expect(s.value(name, labels), name).toBeUndefined();
      expect(
        s.value('http_requests_total', { method: 'GET', route: '/metrics', status_code: '200' }),
      ).toBeGreaterThan(0);
    } finally {
      await sql`alter table webhook_sequence_away rename to webhook_sequence`.execute(t.db);
      await sql`alter table tlog_pending_away rename to tlog_pending`.execute(t.db);
    }
    const after = await scrape();
    for (const name of gauges) expect(after.value(name, labels), name).toBeGreaterThanOrEqual(0);
  });

  it('counts catalogue and API-key cache hits and misses', async () => {
    const other = await seedTenant(t.db);
    const tenantCode = await seedTemplate(t.db, other.tenant.id);
    await publish(t.db, other.tenant.id, tenantCode);
    const api = apiOf(t.app, other.headers, 'inject');
    const before = await scrape();
    const of = (name: string, cache: string, s = before) => s.value(name, { cache }) ?? 0;
    // The first call reads the key and the release; the next two find both in memory.
    for (let i = 0; i < 3; i += 1) expect((await api.latest(tenantCode)).statusCode).toBe(200);
    const after = await scrape();
    for (const cache of ['catalog', 'api_keys']) {
      expect(of('consent_cache_misses_total', cache, after)).toBe(
        of('consent_cache_misses_total', cache) + 1,
      );
      expect(of('consent_cache_hits_total', cache, after)).toBe(
        of('consent_cache_hits_total', cache) + 2,
      );
    }
  });

  it('answers another method 405 1011 with Allow, as any known path', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/metrics',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe('GET, HEAD');
    expect(expectErrorShape(response).code).toBe('1011');
  });

  it('refuses a scrape without a token, or with a wrong one, as 401 1002', async () => {
    for (const headers of [
      {},
      { authorization: 'Bearer wrong-token-0123456789abcdef' },
      { authorization: `Basic ${token}` },
      { authorization: `Bearer ${token}x` },
      { 'x-system-api-key': a.apiKey.key },
    ]) {
      const response = await t.app.inject({ method: 'GET', url: '/metrics', headers });
      expect(response.statusCode).toBe(401);
      expect(expectErrorShape(response)).toEqual({ code: '1002', message: 'Unauthorized.' });
    }
  });
});

describe.each(stores)('GET /metrics beside a rate limit on $name', (store) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(store, { METRICS_TOKEN: token, RATE_LIMIT_PER_MINUTE: '2' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('does not count scrapes against the API rate limit, and needs no API key', async () => {
    const scrape = () =>
      t.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: `Bearer ${token}` },
      });
    for (let i = 0; i < 5; i += 1) expect((await scrape()).statusCode).toBe(200);
    // The limit is 2 a minute per key: the scrapes took none of it.
    const a = await seedTenant(t.db);
    const api = apiOf(t.app, a.headers, 'inject');
    expect((await api.latest('none')).statusCode).toBe(404);
    expect((await api.latest('none')).statusCode).toBe(404);
    expect((await api.latest('none')).statusCode).toBe(429);
    expect((await scrape()).statusCode).toBe(200);
  });
});

describe.each(stores)('GET /metrics with METRICS_ALLOW on $name', (store) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(store, {
      METRICS_ALLOW: '10.0.0.0/8, 2001:db8::/32',
      TRUST_PROXY: 'true',
    });
  });
  afterAll(async () => {
    await t.close();
  });

  const from = (address: string) =>
    t.app.inject({ method: 'GET', url: '/metrics', headers: { 'x-forwarded-for': address } });

  it('answers an address inside the list, as TRUST_PROXY makes it', async () => {
    expect((await from('10.1.2.3')).statusCode).toBe(200);
    expect((await from('2001:db8::7')).statusCode).toBe(200);
  });

  it('refuses an address outside it as 403 1003', async () => {
    for (const address of ['192.0.2.1', '11.0.0.1', '2001:db9::1']) {
      const response = await from(address);
      expect(response.statusCode).toBe(403);
      expect(expectErrorShape(response).code).toBe('1003');
    }
  });
});

describe.each(stores)(
  'GET /metrics with both METRICS_ALLOW and METRICS_TOKEN on $name',
  (store) => {
    let t: TestApp;
    const token = 'both-settings-token-0123456789';

    beforeAll(async () => {
      t = await startTestApp(store, {
        METRICS_ALLOW: '10.0.0.0/8',
        METRICS_TOKEN: token,
        TRUST_PROXY: 'true',
      });
    });
    afterAll(async () => {
      await t.close();
    });

    const scrapeAs = (address: string, bearer?: string) =>
      t.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: {
          'x-forwarded-for': address,
          ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }),
        },
      });

    it('answers only a request from inside the list that bears the token', async () => {
      expect((await scrapeAs('10.1.2.3', token)).statusCode).toBe(200);
      const noToken = await scrapeAs('10.1.2.3');
      expect(noToken.statusCode).toBe(401);
      expect(expectErrorShape(noToken).code).toBe('1002');
      const outside = await scrapeAs('192.0.2.1', token);
      expect(outside.statusCode).toBe(403);
      expect(expectErrorShape(outside).code).toBe('1003');
    });
  },
);

describe.each(stores)('GET /metrics with no METRICS_ setting on $name', (store) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(store);
  });
  afterAll(async () => {
    await t.close();
  });

  it('is an unknown path: 404 1004, the same body as any other', async () => {
    const metrics = await t.app.inject({ method: 'GET', url: '/metrics' });
    const unknown = await t.app.inject({ method: 'GET', url: '/no-such-path' });
    expect(metrics.statusCode).toBe(404);
    expect(metrics.body).toBe(unknown.body);
    expect(expectErrorShape(metrics)).toEqual({ code: '1004', message: 'Not found.' });
    const posted = await t.app.inject({ method: 'POST', url: '/metrics' });
    expect(posted.statusCode).toBe(404);
  });
});

describe.each(stores)('the public API with metrics on, beside one without, on $name', (store) => {
  let on: TestApp;
  let off: TestApp;

  beforeAll(async () => {
    on = await startTestApp(store, { METRICS_TOKEN: token });
    off = await startTestApp(store);
  });
  afterAll(async () => {
    await on.close();
    await off.close();
  });

  it('answers the same requests with the same status, headers and bytes', async () => {
    const requests = [
      { method: 'GET', url: '/api/health' },
      { method: 'GET', url: '/api/v1/consent-templates/terms/latest' },
      {
        method: 'GET',
        url: '/api/v1/consent-templates/terms/latest',
        headers: { 'x-system-api-key': 'csk_0123456789ab_wrong' },
      },
      { method: 'GET', url: '/no-such-path' },
      { method: 'DELETE', url: '/api/health' },
    ] as const;
    for (const request of requests) {
      const [a, b] = await Promise.all([on.app.inject(request), off.app.inject(request)]);
      const headers = (r: typeof a) => {
        const { date: _date, 'x-request-id': _id, ...rest } = r.headers;
        return rest;
      };
      expect([a.statusCode, headers(a), a.body], request.url).toEqual([
        b.statusCode,
        headers(b),
        b.body,
      ]);
    }
  });
});
