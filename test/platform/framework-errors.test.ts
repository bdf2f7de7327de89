import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errors } from '../../src/platform/errors.js';
import type { PublishedVersion } from '../../src/templates/schemas.js';
import { json, startTestApp, type TestApp } from '../helpers/app.js';
import {
  chunkedPost,
  expectError,
  expectNoInternals,
  listeningPort,
  rawExchange,
  requestIdPattern,
} from '../helpers/http.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { storeAgnostic } from '../helpers/stores.js';

const catalogueMessages = new Set<string>(Object.values(errors).map((e) => e.message));

describe.each(storeAgnostic)('framework errors on $name', (store) => {
  let t: TestApp;
  let tenant: SeededTenant;
  let code: string;
  let version: PublishedVersion;
  let customerCounter = 0;

  beforeAll(async () => {
    t = await startTestApp(store);
    tenant = await seedTenant(t.db);
    code = await seedTemplate(t.db, tenant.tenant.id);
    version = await publish(t.db, tenant.tenant.id, code);
  });
  afterAll(async () => {
    await t?.close();
  });

  function freshCustomer(): string {
    customerCounter += 1;
    return `fw-customer-${customerCounter}`;
  }

  function decisionsUrl(customerId: string): string {
    return `/api/v1/customers/${customerId}/consents/decisions`;
  }

  function inject(options: InjectOptions): Promise<LightMyRequestResponse> {
    return t.app.inject(options);
  }

  describe('unknown routes', () => {
    it.each([
      '/',
      '/nope',
      '/api',
      '/api/',
      '/api/nope',
      '/api/v2/consent-templates/x/latest',
      '/api/health/extra',
      '/api/v1x/nope',
      '/API/V1/nope',
      '/api/docs/nope',
      '/api/content',
      '/favicon.ico',
      '/.env',
    ])('outside /api/v1, GET %s answers 404 1004 Not found.', async (url) => {
      expectError(await inject({ method: 'GET', url }), 404, '1004', 'Not found.');
    });

    it('outside /api/v1, an unknown file under the docs answers 404 1004 (not 405)', async () => {
      const response = await inject({ method: 'GET', url: '/api/docs/static/no-such-file.js' });
      expectError(response, 404, '1004', 'Not found.');
    });

    it('outside /api/v1, a POST with a JSON body to an unknown path answers 404 1004', async () => {
      const response = await inject({ method: 'POST', url: '/nope', payload: { a: 1 } });
      expectError(response, 404, '1004', 'Not found.');
    });

    const insideV1 = (): string[] => [
      '/api/v1',
      '/api/v1/',
      '/api/v1/nope',
      '/api/v1/health/extra',
      '/api/v1/consent-templates',
      `/api/v1/consent-templates/${code}`,
      `/api/v1/consent-templates/${code}/latest/extra`,
      `/api/v1/consent-templates/${code}/latest/`,
      '/api/v1/customers',
      '/api/v1/customers/c1/consents/extra',
      `/api/v1/customers/c1/consents/templates/${code}`,
      `/api/v1/customers/c1/consents/templates/${code}/as-of/extra`,
      '/api/v1/decisions/0190e8a0-0000-7000-8000-000000000000/receipt/other',
      '/api/v1/log',
      '/api/v1/log/checkpoint/extra',
      '/api/v1/customers/c1/consents/decisions/extra',
      '/api/v1/customers/c1/consents/decisions/',
    ];

    it('inside /api/v1 with a key, unknown paths answer 404 1004 Not found.', async () => {
      for (const url of insideV1()) {
        const response = await inject({ method: 'GET', url, headers: tenant.headers });
        expectError(response, 404, '1004', 'Not found.');
      }
    });

    it('inside /api/v1 without a key, unknown paths answer 401 1002 first', async () => {
      for (const url of insideV1()) {
        expectError(await inject({ method: 'GET', url }), 401, '1002', 'Unauthorized.');
      }
    });

    it('inside /api/v1 with an unknown key, unknown paths answer 401 1002 first', async () => {
      for (const url of insideV1()) {
        const response = await inject({
          method: 'GET',
          url,
          headers: { 'x-system-api-key': 'not-a-key' },
        });
        expectError(response, 401, '1002');
      }
    });
  });

  describe('known paths with another method', () => {
    type Case = [string, string, () => string, string[]];
    const cases: Case[] = [
      ['PUT', 'decisions', () => decisionsUrl('c1'), ['POST']],
      ['DELETE', 'decisions', () => decisionsUrl('c1'), ['POST']],
      ['PATCH', 'decisions', () => decisionsUrl('c1'), ['POST']],
      ['GET', 'decisions', () => decisionsUrl('c1'), ['POST']],
      ['POST', 'latest', () => `/api/v1/consent-templates/${code}/latest`, ['GET', 'HEAD']],
      ['PUT', 'latest', () => `/api/v1/consent-templates/${code}/latest`, ['GET', 'HEAD']],
      ['DELETE', 'latest', () => `/api/v1/consent-templates/${code}/latest`, ['GET', 'HEAD']],
      [
        'POST',
        'pending',
        () => `/api/v1/customers/c1/consents/templates/${code}/pending`,
        ['GET', 'HEAD'],
      ],
      [
        'DELETE',
        'pending',
        () => `/api/v1/customers/c1/consents/templates/${code}/pending`,
        ['GET', 'HEAD'],
      ],
      ['DELETE', '/api/health', () => '/api/health', ['GET', 'HEAD']],
      ['POST', '/api/health', () => '/api/health', ['GET', 'HEAD']],
      ['PUT', '/api/health', () => '/api/health', ['GET', 'HEAD']],
      ['DELETE', '/api/v1/health', () => '/api/v1/health', ['GET', 'HEAD']],
      [
        'POST',
        'the content file',
        () => `/api/content/${version.consent_version_id}.html`,
        ['GET', 'HEAD'],
      ],
      ['POST', '/api/docs/json', () => '/api/docs/json', ['GET', 'HEAD']],
    ];

    it.each(cases)(
      '%s on %s answers 405 1011 with an Allow header listing the real methods',
      async (method, _label, url, allowed) => {
        const withBody = method !== 'GET' && method !== 'DELETE';
        const response = await inject({
          method: method as InjectOptions['method'],
          url: url(),
          headers: tenant.headers,
          ...(withBody ? { payload: {} } : {}),
        });
        expectError(response, 405, '1011', 'Method not allowed.');
        const allow = String(response.headers.allow ?? '')
          .split(',')
          .map((m) => m.trim())
          .filter(Boolean)
          .sort();
        expect(allow).toEqual([...allowed].sort());
        expect(allow).not.toContain(method);
      },
    );

    it('a PUT on the decisions path with a non-JSON body still answers 405 1011', async () => {
      const response = await inject({
        method: 'PUT',
        url: decisionsUrl('c1'),
        headers: { ...tenant.headers, 'content-type': 'text/plain' },
        payload: 'hello',
      });
      expectError(response, 405, '1011');
      expect(response.headers.allow).toBe('POST');
    });

    it.each([
      ['PUT', 'malformed JSON', '{"decision":'],
      ['PATCH', 'malformed JSON', '{"decision":'],
      ['DELETE', 'malformed JSON', '{"decision":'],
      ['OPTIONS', 'malformed JSON', '{"decision":'],
      ['PATCH', 'a body over 16 KiB', JSON.stringify({ pad: 'x'.repeat(20_000) })],
    ])(
      '%s on the decisions path with %s answers 405 1011: the method is refused before its body is read',
      async (method, _label, payload) => {
        const response = await inject({
          method: method as InjectOptions['method'],
          url: decisionsUrl('c1'),
          headers: { ...tenant.headers, 'content-type': 'application/json' },
          payload,
        });
        expectError(response, 405, '1011', 'Method not allowed.');
        expect(response.headers.allow).toBe('POST');
      },
    );

    it.each([
      ['PUT', 'decisions', () => decisionsUrl('c1')],
      ['POST', 'latest', () => `/api/v1/consent-templates/${code}/latest`],
    ])('%s on %s without a key answers 401 1002 first', async (method, _label, url) => {
      const response = await inject({
        method: method as InjectOptions['method'],
        url: url(),
        payload: {},
      });
      expectError(response, 401, '1002', 'Unauthorized.');
    });

    it('a method the Allow header lists does work on that path', async () => {
      const latest = await inject({
        method: 'GET',
        url: `/api/v1/consent-templates/${code}/latest`,
        headers: tenant.headers,
      });
      expect(latest.statusCode).toBe(200);
      const head = await inject({
        method: 'HEAD',
        url: `/api/v1/consent-templates/${code}/latest`,
        headers: tenant.headers,
      });
      expect(head.statusCode).toBe(200);
    });
  });

  describe('X-Request-Id', () => {
    type Scenario = [string, number, () => InjectOptions];
    const scenarios: Scenario[] = [
      ['the health check', 200, () => ({ method: 'GET', url: '/api/health' })],
      [
        'latest',
        200,
        () => ({
          method: 'GET',
          url: `/api/v1/consent-templates/${code}/latest`,
          headers: tenant.headers,
        }),
      ],
      [
        'a 304 on latest',
        304,
        () => ({
          method: 'GET',
          url: `/api/v1/consent-templates/${code}/latest`,
          headers: { ...tenant.headers, 'if-none-match': '*' },
        }),
      ],
      [
        'a recorded decision',
        201,
        () => ({
          method: 'POST',
          url: decisionsUrl(freshCustomer()),
          headers: tenant.headers,
          payload: { consent_version_id: version.consent_version_id, decision: 'given' },
        }),
      ],
      [
        'a 400 validation error',
        400,
        () => ({
          method: 'POST',
          url: decisionsUrl('c1'),
          headers: tenant.headers,
          payload: { decision: ['given'] },
        }),
      ],
      [
        'a 400 malformed JSON',
        400,
        () => ({
          method: 'POST',
          url: decisionsUrl('c1'),
          headers: { ...tenant.headers, 'content-type': 'application/json' },
          payload: '{',
        }),
      ],
      [
        'a 400 malformed URL',
        400,
        () => ({
          method: 'GET',
          url: '/api/v1/consent-templates/%E0%A4%A/latest',
          headers: tenant.headers,
        }),
      ],
      ['a 401', 401, () => ({ method: 'GET', url: `/api/v1/consent-templates/${code}/latest` })],
      ['a 404 unknown route', 404, () => ({ method: 'GET', url: '/nope' })],
      [
        'a 404 unknown template',
        404,
        () => ({
          method: 'GET',
          url: '/api/v1/consent-templates/no_such_template/latest',
          headers: tenant.headers,
        }),
      ],
      ['a 405', 405, () => ({ method: 'DELETE', url: '/api/health' })],
      [
        'a 409',
        409,
        () => ({
          method: 'POST',
          url: decisionsUrl(freshCustomer()),
          headers: tenant.headers,
          payload: { consent_version_id: version.consent_version_id, decision: 'withdraw' },
        }),
      ],
      [
        'a 413',
        413,
        () => ({
          method: 'POST',
          url: decisionsUrl('c1'),
          headers: { ...tenant.headers, 'content-type': 'application/json' },
          payload: JSON.stringify({ pad: 'x'.repeat(20_000) }),
        }),
      ],
      [
        'a 415',
        415,
        () => ({
          method: 'POST',
          url: decisionsUrl('c1'),
          headers: { ...tenant.headers, 'content-type': 'text/plain' },
          payload: 'x',
        }),
      ],
      ['the OpenAPI document', 200, () => ({ method: 'GET', url: '/api/docs/json' })],
      [
        'the content file',
        200,
        () => ({ method: 'GET', url: `/api/content/${version.consent_version_id}.html` }),
      ],
    ];

    function withRequestId(options: InjectOptions, id: string | undefined): InjectOptions {
      const headers = { ...(options.headers as Record<string, string> | undefined) };
      if (id !== undefined) headers['x-request-id'] = id;
      return { ...options, headers };
    }

    it.each(scenarios)(
      '%s echoes a well-formed caller X-Request-Id',
      async (_label, status, request) => {
        const id = `caller.id:${status}-${customerCounter}_A`;
        const response = await inject(withRequestId(request(), id));
        expect(response.statusCode, response.body).toBe(status);
        expect(response.headers['x-request-id']).toBe(id);
      },
    );

    it.each(scenarios)(
      '%s without X-Request-Id carries a new well-formed one',
      async (_label, status, request) => {
        const response = await inject(withRequestId(request(), undefined));
        expect(response.statusCode, response.body).toBe(status);
        expect(String(response.headers['x-request-id'] ?? '')).toMatch(requestIdPattern);
      },
    );

    const malformed: [string, string][] = [
      ['129 characters', 'r'.repeat(129)],
      ['a space', 'a b'],
      ['a slash', 'a/b'],
      ['a comma', 'a,b'],
      ['angle brackets', '<script>'],
      ['non-ASCII', 'r\u00e9q'],
      ['a quote', 'a"b'],
      ['empty', ''],
    ];

    it.each(malformed)(
      'a caller X-Request-Id with %s is replaced by a new well-formed one, on success and error',
      async (_label, id) => {
        for (const [, status, request] of scenarios.filter(([, s]) =>
          [200, 401, 404, 405].includes(s),
        )) {
          const response = await inject(withRequestId(request(), id));
          expect(response.statusCode).toBe(status);
          const answered = String(response.headers['x-request-id'] ?? '');
          expect(answered).toMatch(requestIdPattern);
          expect(answered).not.toBe(id);
        }
      },
    );

    it('a 128-character caller X-Request-Id is echoed', async () => {
      const id = 'R'.repeat(128);
      const response = await inject({
        method: 'GET',
        url: '/nope',
        headers: { 'x-request-id': id },
      });
      expect(response.headers['x-request-id']).toBe(id);
    });

    it('two requests without an id get different ones', async () => {
      const [a, b] = await Promise.all([
        inject({ method: 'GET', url: '/api/health' }),
        inject({ method: 'GET', url: '/api/health' }),
      ]);
      expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
    });
  });

  describe('no internals in error bodies', () => {
    const hostile: [string, () => InjectOptions][] = [
      [
        'SQL in the customer id',
        () => ({
          method: 'GET',
          url: `/api/v1/customers/${encodeURIComponent("x'; DROP TABLE decisions; --")}/consents/templates/${code}/pending`,
          headers: tenant.headers,
        }),
      ],
      [
        'SQL in the template code',
        () => ({
          method: 'GET',
          url: `/api/v1/consent-templates/${encodeURIComponent("' OR '1'='1")}/latest`,
          headers: tenant.headers,
        }),
      ],
      [
        'SQL in the version id',
        () => ({
          method: 'POST',
          url: decisionsUrl('c1'),
          headers: tenant.headers,
          payload: { consent_version_id: "' UNION SELECT * FROM api_keys --", decision: 'given' },
        }),
      ],
      [
        'a huge number',
        () => ({
          method: 'POST',
          url: decisionsUrl('c1'),
          headers: { ...tenant.headers, 'content-type': 'application/json' },
          payload: `{"consent_version_id": 1e999999, "decision": "given"}`,
        }),
      ],
      [
        'a lone surrogate',
        () => ({
          method: 'POST',
          url: decisionsUrl('c1'),
          headers: { ...tenant.headers, 'content-type': 'application/json' },
          payload: '{"consent_version_id": "\\ud800", "decision": "given"}',
        }),
      ],
      [
        'a NUL byte',
        () => ({
          method: 'POST',
          url: decisionsUrl('c1'),
          headers: { ...tenant.headers, 'content-type': 'application/json' },
          payload: '{"consent_version_id": "\\u0000", "decision": "given"}',
        }),
      ],
      [
        'a prototype-polluting body',
        () => ({
          method: 'POST',
          url: decisionsUrl('c1'),
          headers: { ...tenant.headers, 'content-type': 'application/json' },
          payload: '{"__proto__": {"admin": true}}',
        }),
      ],
      [
        'a malformed JSON',
        () => ({
          method: 'POST',
          url: decisionsUrl('c1'),
          headers: { ...tenant.headers, 'content-type': 'application/json' },
          payload: '{"decision": "given", oops}',
        }),
      ],
      [
        'an unknown API key that looks like SQL',
        () => ({
          method: 'GET',
          url: `/api/v1/consent-templates/${code}/latest`,
          headers: { 'x-system-api-key': "' OR 1=1 --" },
        }),
      ],
      [
        'a very long API key',
        () => ({
          method: 'GET',
          url: `/api/v1/consent-templates/${code}/latest`,
          headers: { 'x-system-api-key': 'k'.repeat(8000) },
        }),
      ],
      [
        'a malformed percent-encoding',
        () => ({ method: 'GET', url: '/api/%zz', headers: tenant.headers }),
      ],
      [
        'an unknown content file',
        () => ({ method: 'GET', url: '/api/content/00000000-0000-4000-8000-000000000000.html' }),
      ],
      [
        'a malformed content file name',
        () => ({ method: 'GET', url: '/api/content/..%2F..%2Fetc%2Fpasswd' }),
      ],
    ];

    it.each(hostile)(
      'for %s, answers a 4xx in the error shape with a catalogue message and no stack, SQL or internals',
      async (_label, request) => {
        const response = await inject(request());
        expect(response.statusCode, response.body).toBeGreaterThanOrEqual(400);
        expect(response.statusCode, response.body).toBeLessThan(500);
        const body = expectError(response, response.statusCode, json(response).code);
        expect(catalogueMessages.has(body.message)).toBe(true);
        for (const detail of body.details ?? []) expectNoInternals(detail.issue);
      },
    );
  });

  describe('over a real socket', () => {
    let port: number;
    beforeAll(async () => {
      port = await listeningPort(t.app);
    });

    it('when an oversized body is sent chunked (no Content-Length), answers 413 1006', async () => {
      const body = JSON.stringify({
        consent_version_id: version.consent_version_id,
        decision: 'given',
        pad: 'x'.repeat(40_000),
      });
      const response = await chunkedPost(
        port,
        decisionsUrl('chunked-big'),
        { ...tenant.headers, 'content-type': 'application/json' },
        body,
      );
      expect(response.status).toBe(413);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(JSON.parse(response.body)).toEqual({ code: '1006', message: 'Payload too large.' });
      expect(response.headers['x-request-id']).toMatch(requestIdPattern);
    });

    it('when a small body is sent chunked, the decision is recorded 201', async () => {
      const response = await chunkedPost(
        port,
        decisionsUrl('chunked-small'),
        { ...tenant.headers, 'content-type': 'application/json' },
        JSON.stringify({ consent_version_id: version.consent_version_id, decision: 'given' }),
        8,
      );
      expect(response.status, response.body).toBe(201);
      expect(JSON.parse(response.body).data.customer_id).toBe('chunked-small');
    });

    it('when a chunked body is malformed JSON, answers 400 1001', async () => {
      const response = await chunkedPost(
        port,
        decisionsUrl('chunked-bad'),
        { ...tenant.headers, 'content-type': 'application/json' },
        '{"decision": "giv',
        4,
      );
      expect(response.status).toBe(400);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(JSON.parse(response.body)).toMatchObject({ code: '1001' });
    });

    it.each([
      ['a request line that is not HTTP', 'GARBAGE\r\n\r\n'],
      ['a header without a colon', 'GET /api/health HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'],
      [
        'a header name with a space',
        'GET /api/health HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n',
      ],
      [
        'both Content-Length and Transfer-Encoding',
        'POST /api/v1/customers/c1/consents/decisions HTTP/1.1\r\nHost: x\r\n' +
          'Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      ],
      [
        'an invalid chunk size',
        () =>
          'POST /api/v1/customers/c1/consents/decisions HTTP/1.1\r\nHost: x\r\n' +
          `x-system-api-key: ${tenant.headers['x-system-api-key']}\r\n` +
          'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nabc\r\n0\r\n\r\n',
      ],
    ])(
      'when the client sends %s, answers 400 1001 in the error shape with an X-Request-Id',
      async (_label, text) => {
        const response = await rawExchange(port, typeof text === 'function' ? text() : text);
        expect(response.status).toBe(400);
        expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(JSON.parse(response.body)).toEqual({ code: '1001', message: 'Invalid request.' });
        expect(response.headers['x-request-id'] ?? '').toMatch(requestIdPattern);
      },
    );

    it('without a key, a malformed chunked body gets a single answer: 401', async () => {
      const response = await rawExchange(
        port,
        'POST /api/v1/customers/c1/consents/decisions HTTP/1.1\r\nHost: x\r\n' +
          'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nabc\r\n0\r\n\r\n',
      );
      expect(response.status).toBe(401);
      expect(JSON.parse(response.body)).toEqual({ code: '1002', message: 'Unauthorized.' });
      expect(response.body).not.toContain('HTTP/1.1');
    });

    it('HEAD on the decisions path answers 405 with Allow: POST and no body', async () => {
      const key = tenant.headers['x-system-api-key'];
      const response = await rawExchange(
        port,
        'HEAD /api/v1/customers/c1/consents/decisions HTTP/1.1\r\nHost: x\r\n' +
          `x-system-api-key: ${key}\r\nConnection: close\r\n\r\n`,
      );
      expect(response.status).toBe(405);
      expect(response.headers.allow).toBe('POST');
      expect(response.body).toBe('');
      expect(response.headers['x-request-id']).toMatch(requestIdPattern);
    });

    it('an unknown route over the socket answers 404 1004 with the JSON content type', async () => {
      const response = await rawExchange(
        port,
        'GET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      );
      expect(response.status).toBe(404);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(JSON.parse(response.body)).toEqual({ code: '1004', message: 'Not found.' });
      expect(response.headers['x-request-id']).toMatch(requestIdPattern);
    });
  });
});
