import type { FastifyInstance, RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, serviceLogger } from '../src/app/app.js';
import { createMetrics } from '../src/metrics/index.js';
import { loadConfig } from '../src/platform/config.js';
import { createDb, type Db } from '../src/platform/db.js';
import { migrateToLatest } from '../src/platform/migrate.js';
import { testDataKey, testLogKeys } from './helpers/app.js';
import { parseScrape } from './helpers/prometheus.js';
import { publish, type SeededTenant, seedTemplate, seedTenant, unique } from './helpers/seed.js';
import { stores } from './helpers/stores.js';
import { testPasswordHashCost } from './helpers/time.js';
import {
  type Answer,
  comparable as comparableAnswer,
  fromInject,
  overHttp as overSocket,
} from './helpers/two-paths.js';

const latestRoute = '/api/v1/consent-templates/:template_code/latest';
const pendingRoute = '/api/v1/customers/:customer_id/consents/templates/:template_code/pending';
const metricsToken = 'hot-reads-metrics-token-0123456789';
const rateLimit = 1000;

describe.each(stores)('latest and pending answered before Fastify, on $name', (store) => {
  const lines: Array<Record<string, unknown>> = [];
  /** Requests of the two routes that reached Fastify's handling. */
  const reachedFastify: string[] = [];
  let app: FastifyInstance;
  let db: Db;
  let drop: () => Promise<void>;
  let a: SeededTenant;
  let base: string;

  beforeAll(async () => {
    const created = await store.create();
    drop = created.drop;
    const config = loadConfig({
      DATABASE_URL: created.databaseUrl,
      PUBLIC_BASE_URL: 'https://consent.test',
      LOG_SIGNING_KEY: testLogKeys.signerKey,
      DATA_ENCRYPTION_KEY: testDataKey.toString('base64'),
      PASSWORD_HASH_COST: String(testPasswordHashCost),
      RATE_LIMIT_PER_MINUTE: String(rateLimit),
      METRICS_TOKEN: metricsToken,
    });
    db = createDb(config);
    await migrateToLatest(db, testDataKey);
    a = await seedTenant(db);
    app = await buildApp(config, db, {
      metrics: createMetrics(),
      logger: {
        ...serviceLogger('info'),
        stream: { write: (line: string) => lines.push(JSON.parse(line)) },
      },
      onRoute: (route: RouteOptions) => {
        if (route.url !== latestRoute && route.url !== pendingRoute) return;
        const own = route.onRequest;
        route.onRequest = [
          ...(own === undefined ? [] : [own].flat()),
          (request, _reply, done) => {
            reachedFastify.push(request.url);
            done();
          },
        ];
      },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    base = `http://127.0.0.1:${address.port}`;
  });
  afterAll(async () => {
    await app.close();
    await db.destroy();
    await drop();
  });

  const overHttp = (path: string, headers: Record<string, string> = a.headers, method = 'GET') =>
    overSocket(base, path, headers, method);

  /**
   * Over the socket, asserting it was answered before Fastify. The key and the release are
   * cached for 0.9 s: on a busy machine the cache may have lapsed since the request that filled
   * it, and Fastify answers (filling it again), so the request is made again, up to 3 times.
   * `attempt` runs before each.
   */
  async function hot(
    path: string,
    headers: Record<string, string> = a.headers,
    attempt: () => void = () => {},
  ): Promise<Answer> {
    for (let made = 1; ; made += 1) {
      attempt();
      const seen = reachedFastify.length;
      const answer = await overHttp(path, headers);
      if (reachedFastify.length === seen || made === 3) {
        expect(reachedFastify.slice(seen)).toEqual([]);
        return answer;
      }
    }
  }

  /** Over the socket, asserting Fastify answered it. */
  async function routed(
    path: string,
    headers: Record<string, string> = a.headers,
    method = 'GET',
  ): Promise<Answer> {
    const before = reachedFastify.length;
    const answer = await overHttp(path, headers, method);
    expect(reachedFastify.slice(before).length).toBeGreaterThan(0);
    return answer;
  }

  /** Fastify's answer to the same request, through its own routing (inject). */
  async function fastify(path: string, headers: Record<string, string> = a.headers) {
    return fromInject(await app.inject({ method: 'GET', url: path, headers }));
  }

  it('answers latest and pending byte for byte as Fastify does: status, headers in order, body', async () => {
    const code = await seedTemplate(db, a.tenant.id);
    const v = await publish(db, a.tenant.id, code);
    const given = unique('g');
    const decided = await app.inject({
      method: 'POST',
      url: `/api/v1/customers/${given}/consents/decisions`,
      headers: a.headers,
      payload: { consent_version_id: v.consent_version_id, decision: 'given' },
    });
    expect(decided.statusCode).toBe(201);
    // The first request reads the key and the release from the store, through Fastify.
    await routed(`/api/v1/consent-templates/${code}/latest`);

    const requests: Array<[string, Record<string, string>]> = [
      [`/api/v1/consent-templates/${code}/latest`, a.headers],
      [
        `/api/v1/consent-templates/${code}/latest`,
        { ...a.headers, 'accept-language': 'th, en;q=0.5' },
      ],
      [`/api/v1/customers/${given}/consents/templates/${code}/pending`, a.headers],
      [`/api/v1/customers/${unique('n')}/consents/templates/${code}/pending`, a.headers],
      [
        `/api/v1/customers/${given}/consents/templates/${code}/pending`,
        { ...a.headers, 'accept-language': 'en' },
      ],
    ];
    for (const [path, headers] of requests) {
      const expected = await fastify(path, headers);
      const answer = await hot(path, headers);
      expect(answer.status).toBe(200);
      expect(answer.body).toBe(expected.body);
      expect(comparableAnswer(answer).headers).toEqual(comparableAnswer(expected).headers);
    }
    // What the contract says of them, beside Fastify's word.
    const latest = await hot(`/api/v1/consent-templates/${code}/latest`);
    expect(JSON.parse(latest.body)).toEqual({ data: v });
    const pending = await hot(`/api/v1/customers/${given}/consents/templates/${code}/pending`);
    expect(JSON.parse(pending.body)).toEqual({
      data: {
        accepted: true,
        consent_version: v,
        decision: 'given',
        decided_at: JSON.parse(decided.body).data.decided_at,
      },
    });
    const headers = new Map(pending.headers);
    expect(headers.get('ratelimit-limit')).toBe(String(rateLimit));
    expect(headers.get('cache-control')).toBe('no-store');
    expect(headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('writes the one request log line, and counts the answer in the route metrics', async () => {
    const code = await seedTemplate(db, a.tenant.id);
    await publish(db, a.tenant.id, code);
    const path = `/api/v1/consent-templates/${code}/latest`;
    await routed(path);
    const scrape = async () =>
      parseScrape(
        (
          await app.inject({
            method: 'GET',
            url: '/metrics',
            headers: { authorization: `Bearer ${metricsToken}` },
          })
        ).body,
      );
    const counted = (s: ReturnType<typeof parseScrape>) =>
      s.value('http_requests_total', { method: 'GET', route: latestRoute, status_code: '200' }) ??
      0;
    const before = counted(await scrape());
    // Every attempt is counted, the last (answered before Fastify) included.
    let attempts = 0;
    const answer = await hot(path, { ...a.headers, 'x-request-id': 'hot-read-1' }, () => {
      lines.length = 0;
      attempts += 1;
    });
    expect(new Map(answer.headers).get('x-request-id')).toBe('hot-read-1');
    expect(lines.filter((line) => line.msg === 'request completed')).toEqual([
      {
        level: 30,
        time: expect.any(Number),
        pid: process.pid,
        hostname: expect.any(String),
        reqId: 'hot-read-1',
        method: 'GET',
        url: path,
        statusCode: 200,
        responseTime: expect.any(Number),
        remoteAddress: '127.0.0.1',
        msg: 'request completed',
      },
    ]);
    expect(counted(await scrape())).toBe(before + attempts);
  });

  it('hands Fastify every other request, which answers it as before', async () => {
    const code = await seedTemplate(db, a.tenant.id);
    await publish(db, a.tenant.id, code);
    const latest = `/api/v1/consent-templates/${code}/latest`;
    const etag = new Map((await routed(latest)).headers).get('etag') ?? '';
    expect((await routed(latest, { ...a.headers, 'if-none-match': etag })).status).toBe(304);
    expect((await routed(`${latest}?locale=th`)).status).toBe(200);
    // Refusals are Fastify's alone (its key check answers them before any route's own hook).
    expect((await overHttp(latest, {}, 'HEAD')).status).toBe(401);
    expect((await overHttp(latest, { 'x-system-api-key': 'csk_nope_nope' })).status).toBe(401);
    // Twice: the second time, the template's absence is what the cache holds.
    expect((await routed('/api/v1/consent-templates/none_such/latest')).status).toBe(404);
    expect((await routed('/api/v1/consent-templates/none_such/latest')).status).toBe(404);
    // pending asks the store first, then hands an unknown template over.
    const unknown = await routed(
      `/api/v1/customers/${unique('c')}/consents/templates/none_such/pending`,
    );
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body)).toEqual({ code: '1004', message: expect.any(String) });
  });

  it('shares the rate limit with Fastify: past it, Fastify answers 429 1008', async () => {
    // A key of its own: its window starts with its first request.
    const b = await seedTenant(db);
    const code = await seedTemplate(db, b.tenant.id);
    await publish(db, b.tenant.id, code);
    const latest = `/api/v1/consent-templates/${code}/latest`;
    const first = await routed(latest, b.headers);
    let remaining = Number(new Map(first.headers).get('ratelimit-remaining'));
    expect(remaining).toBe(rateLimit - 1);
    // Each request counts once, whoever answers it (Fastify, when the key's or the release's
    // 0.9 s in the cache lapsed on a busy machine).
    let answeredHot = 0;
    while (remaining > 0) {
      const seen = reachedFastify.length;
      const answer = await overHttp(latest, b.headers);
      if (reachedFastify.length === seen) answeredHot += 1;
      const left = Number(new Map(answer.headers).get('ratelimit-remaining'));
      expect(left).toBe(remaining - 1);
      remaining = left;
    }
    expect(answeredHot).toBeGreaterThan(0);
    const refused = await overHttp(latest, b.headers);
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body)).toEqual({ code: '1008', message: expect.any(String) });
  });
});
