import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/api-keys/service.js';
import { expectErrorShape, startTestApp, type TestApp } from '../helpers/app.js';
import { expectError } from '../helpers/http.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { storeAgnostic } from '../helpers/stores.js';

describe.each(storeAgnostic)('rate limit per API key on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let code: string;
  let versionId: string;

  beforeAll(async () => {
    t = await startTestApp(store, { RATE_LIMIT_PER_MINUTE: '3' });
    a = await seedTenant(t.db);
    code = await seedTemplate(t.db, a.tenant.id);
    versionId = (await publish(t.db, a.tenant.id, code)).consent_version_id;
  });
  afterAll(async () => {
    await t.close();
  });

  const latest = (headers: Record<string, string>) =>
    t.app.inject({ method: 'GET', url: `/api/v1/consent-templates/${code}/latest`, headers });

  it('past the limit, answers 429 1008 with Retry-After; other keys keep their own budget', async () => {
    const key = await createApiKey(t.db, a.tenant.id, { name: 'limited' });
    const headers = { 'x-system-api-key': key.key };
    for (let i = 0; i < 3; i += 1) {
      const response = await latest(headers);
      expect(response.statusCode).toBe(200);
      // The IETF RateLimit headers tell the client its budget on every answer.
      expect(response.headers['ratelimit-limit']).toBe('3');
      expect(response.headers['ratelimit-remaining']).toBe(String(2 - i));
      expect(Number(response.headers['ratelimit-reset'])).toBeGreaterThan(0);
    }
    const limited = await latest(headers);
    expect(limited.statusCode).toBe(429);
    expect(expectErrorShape(limited)).toEqual({ code: '1008', message: 'Too many requests.' });
    expect(limited.headers['ratelimit-limit']).toBe('3');
    expect(limited.headers['ratelimit-remaining']).toBe('0');
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    const other = await createApiKey(t.db, a.tenant.id, { name: 'other' });
    expect((await latest({ 'x-system-api-key': other.key })).statusCode).toBe(200);
  });

  it('requests without a valid key are 401 and do not use up any budget', async () => {
    const key = await createApiKey(t.db, a.tenant.id, { name: 'untouched' });
    for (let i = 0; i < 5; i += 1) {
      expect((await latest({ 'x-system-api-key': 'wrong' })).statusCode).toBe(401);
    }
    expect((await latest({ 'x-system-api-key': key.key })).statusCode).toBe(200);
  });

  // Contract section 2: after the key, the rate limit comes before body size, media type,
  // validation and existence.
  const refusedLater: [string, Record<string, string>, string][] = [
    [
      'a body over 16 KiB (413)',
      { 'content-type': 'application/json' },
      `{"x":"${'a'.repeat(17 * 1024)}"}`,
    ],
    ['a body that is not JSON (415)', { 'content-type': 'text/plain' }, 'given'],
    [
      'a body that fails validation (400)',
      { 'content-type': 'application/json' },
      '{"decision":"maybe"}',
    ],
    [
      'a version that does not exist (404)',
      { 'content-type': 'application/json' },
      '{"consent_version_id":"01a1fb28-cb6d-71c2-b4c6-d31fcf3b015f","decision":"given"}',
    ],
  ];
  it.each(refusedLater)(
    'past the limit, a decision with %s is 429 1008: the rate limit comes first',
    async (label, contentType, payload) => {
      const key = await createApiKey(t.db, a.tenant.id, { name: `before the body: ${label}` });
      const headers = { 'x-system-api-key': key.key };
      for (let i = 0; i < 3; i += 1) expect((await latest(headers)).statusCode).toBe(200);
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/v1/customers/limited-customer/consents/decisions',
        headers: { ...headers, ...contentType },
        payload,
      });
      expectError(response, 429, '1008', 'Too many requests.');
      expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    },
  );

  /** Requests under /api/v1 that match no route: an unknown path, an undecodable one, a wrong method. */
  const unrouted: [string, string, string, number, string][] = [
    ['an unknown path', 'GET', '/api/v1/no/such/route', 404, '1004'],
    ['an undecodable path', 'GET', '/api/v1/consent-templates/%ZZ/latest', 400, '1001'],
    ['a wrong method', 'DELETE', '/api/v1/consent-templates/any/latest', 405, '1011'],
  ];

  it('requests that match no route count against the key and carry the RateLimit headers', async () => {
    const key = await createApiKey(t.db, a.tenant.id, { name: 'unrouted' });
    const headers = { 'x-system-api-key': key.key };
    for (const [index, [label, method, url, status, errorCode]] of unrouted.entries()) {
      const response = await t.app.inject({ method: method as 'GET', url, headers });
      expect(response.statusCode, label).toBe(status);
      expectError(response, status, errorCode);
      expect(response.headers['ratelimit-limit'], label).toBe('3');
      expect(response.headers['ratelimit-remaining'], label).toBe(String(2 - index));
      expect(Number(response.headers['ratelimit-reset']), label).toBeGreaterThan(0);
    }
    // The three above used up the budget: a routed request is now refused.
    expectError(await latest(headers), 429, '1008');
  });

  it.each(unrouted)(
    'past the limit, %s is 429 1008 with Retry-After (the rate limit comes before existence)',
    async (label, method, url) => {
      const key = await createApiKey(t.db, a.tenant.id, { name: `spent: ${label}` });
      const headers = { 'x-system-api-key': key.key };
      for (let i = 0; i < 3; i += 1) expect((await latest(headers)).statusCode).toBe(200);
      const response = await t.app.inject({ method: method as 'GET', url, headers });
      expectError(response, 429, '1008', 'Too many requests.');
      expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(response.headers['ratelimit-limit']).toBe('3');
      expect(response.headers['ratelimit-remaining']).toBe('0');
    },
  );

  it.each(unrouted)(
    'without a valid key, %s is 401 1002 and uses up no budget',
    async (label, method, url) => {
      const key = await createApiKey(t.db, a.tenant.id, { name: `unrouted-untouched: ${label}` });
      for (let i = 0; i < 5; i += 1) {
        const response = await t.app.inject({
          method: method as 'GET',
          url,
          headers: { 'x-system-api-key': 'wrong' },
        });
        expectError(response, 401, '1002');
        expect(response.headers['ratelimit-limit']).toBeUndefined();
      }
      expect((await latest({ 'x-system-api-key': key.key })).statusCode).toBe(200);
    },
  );

  it('the health check and the content file are not limited', async () => {
    // Spend the budget of the key the requests below carry, then call both past it.
    const key = await createApiKey(t.db, a.tenant.id, { name: 'spent-before-content' });
    const headers = { 'x-system-api-key': key.key };
    for (let i = 0; i < 3; i += 1) expect((await latest(headers)).statusCode).toBe(200);
    expect((await latest(headers)).statusCode).toBe(429);
    for (let i = 0; i < 5; i += 1) {
      for (const url of ['/api/health', '/api/v1/health', `/api/content/${versionId}.html`]) {
        for (const sent of [headers, {}]) {
          const response = await t.app.inject({ method: 'GET', url, headers: sent });
          expect(response.statusCode, url).toBe(200);
          expect(response.headers['ratelimit-limit'], url).toBeUndefined();
          expect(response.headers['ratelimit-remaining'], url).toBeUndefined();
        }
      }
    }
    const content = await t.app.inject({ method: 'GET', url: `/api/content/${versionId}.html` });
    expect(content.headers['content-type']).toBe('text/html; charset=utf-8');
  });
});

describe.each(storeAgnostic)('RATE_LIMIT_PER_MINUTE=0 on $name', (store) => {
  it('turns the limit off', async () => {
    const t = await startTestApp(store, { RATE_LIMIT_PER_MINUTE: '0' });
    try {
      const a = await seedTenant(t.db);
      const code = await seedTemplate(t.db, a.tenant.id);
      await publish(t.db, a.tenant.id, code);
      for (let i = 0; i < 20; i += 1) {
        const response = await t.app.inject({
          method: 'GET',
          url: `/api/v1/consent-templates/${code}/latest`,
          headers: a.headers,
        });
        expect(response.statusCode).toBe(200);
        expect(response.headers['ratelimit-limit']).toBeUndefined();
      }
    } finally {
      await t.close();
    }
  });
});

describe.each(storeAgnostic)('throttle on failed authentication on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let code: string;

  beforeAll(async () => {
    t = await startTestApp(store, { AUTH_FAILURES_PER_MINUTE: '5' });
    a = await seedTenant(t.db);
    code = await seedTemplate(t.db, a.tenant.id);
    await publish(t.db, a.tenant.id, code);
  });
  afterAll(async () => {
    await t.close();
  });

  const latestFrom = (remoteAddress: string, key: string) =>
    t.app.inject({
      method: 'GET',
      url: `/api/v1/consent-templates/${code}/latest`,
      headers: { 'x-system-api-key': key },
      remoteAddress,
    });

  it('after too many bad keys from one address, refuses it with 429 1008 without checking keys', async () => {
    const address = '203.0.113.10';
    for (let i = 0; i < 5; i += 1) {
      expect((await latestFrom(address, `wrong-${i}`)).statusCode).toBe(401);
    }
    const blocked = await latestFrom(address, 'wrong-again');
    expect(blocked.statusCode).toBe(429);
    expect(expectErrorShape(blocked)).toEqual({ code: '1008', message: 'Too many requests.' });
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Even a valid key is not looked at from a blocked address until its minute is over.
    expect((await latestFrom(address, a.apiKey.key)).statusCode).toBe(429);
  });

  it('other addresses and valid keys are not affected', async () => {
    for (let i = 0; i < 6; i += 1) await latestFrom('203.0.113.20', `wrong-${i}`);
    expect((await latestFrom('203.0.113.21', a.apiKey.key)).statusCode).toBe(200);
    // Successful requests do not count as failures.
    for (let i = 0; i < 10; i += 1) {
      expect((await latestFrom('203.0.113.22', a.apiKey.key)).statusCode).toBe(200);
    }
  });
});
