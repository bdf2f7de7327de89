/**
 * Property-based fuzzing of the whole HTTP surface (contract sections 2 to 4), on each store.
 *
 * Requests are made up by fast-check with a FIXED seed (`seed` below, also in the test names), so
 * a run is repeatable: a failure prints the counterexample, the seed and the `path`; replay it
 * with `fc.assert(property, { seed, path, endOnFailure: true })`. Each property runs a bounded
 * number of times.
 *
 * For every response: never a 5xx; every error (4xx) has the contract's shape
 * (`{code, message[, details]}`, a catalogue code matching its status, JSON content type) and no
 * internals; every response carries a well-formed `X-Request-Id` (the caller's own when it sent a
 * good one); a 2xx is `{"data": ...}` except the health check, the content file and the docs; a
 * 304 has no body. A tenant, templates, versions and keys are seeded so that valid requests
 * happen too (the test checks that they did).
 */
import fc from 'fast-check';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../src/api-keys/service.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import {
  expectNoInternals,
  listeningPort,
  type RawResponse,
  rawExchange,
  requestIdPattern,
} from './helpers/http.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from './helpers/seed.js';
import { stores } from './helpers/stores.js';
import { budget } from './helpers/time.js';

/** The fixed seed of every property in this file: change it to explore, keep it to replay. */
const seed = 20_251_120;
/**
 * Each property runs exactly this many cases, whatever the machine's speed (never cut short by
 * a clock); the test's time-out, from `budget`, only bounds a run that hangs.
 */
const injectRuns = 500;
const rawRuns = 150;

/** Contract section 3: each error status and the one code it carries. */
const codeForStatus: Record<number, string> = {
  400: '1001',
  401: '1002',
  404: '1004',
  405: '1011',
  409: '1005',
  413: '1006',
  415: '1007',
  422: '1010',
  429: '1008',
  500: '1000',
  503: '1009',
};
const catalogue = new Set(Object.values(codeForStatus));

/** What the seeded store holds, for the arbitraries to aim at. */
interface Target {
  key: string;
  revokedKey: string;
  otherTenantKey: string;
  code: string;
  noReconsentCode: string;
  draftOnlyCode: string;
  otherTenantCode: string;
  versionId: string;
  oldVersionId: string;
  noReconsentVersionId: string;
  otherTenantVersionId: string;
}

interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
  remoteAddress: string;
}

/** Header values a real client can send: tab, visible ASCII and space, and Latin-1 bytes. */
const headerChar = fc.oneof(
  { weight: 1, arbitrary: fc.constant('\t') },
  { weight: 8, arbitrary: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) },
  { weight: 2, arbitrary: fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c)) },
);
const headerValue = (maxLength = 40) => fc.string({ unit: headerChar, maxLength });
const anyString = (maxLength = 30) => fc.string({ unit: 'binary', maxLength });
const customerPool = ['cust-1', 'cust-2', 'cust.3@example.test', 'cust:4+x', 'CUST_5'];
const idempotencyPool = ['idem-1', 'idem-2', 'idem 3 with spaces'];

function arbitraries(target: Target) {
  const knownWord = fc.constantFrom(
    'api',
    'v1',
    'health',
    'customers',
    'consents',
    'templates',
    'consent-templates',
    'latest',
    'pending',
    'decisions',
    'content',
    'docs',
    'json',
    target.code,
    target.versionId,
    `${target.versionId}.html`,
    ...customerPool,
  );
  const segment = fc.oneof(
    { weight: 4, arbitrary: knownWord },
    { weight: 3, arbitrary: fc.stringMatching(/^[A-Za-z0-9._:@+-]{1,24}$/) },
    { weight: 2, arbitrary: anyString() },
    { weight: 2, arbitrary: anyString().map((s) => encodeURIComponent(s)) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '%',
        '%zz',
        '%E0%A4%A',
        '%C0%AF',
        '%00',
        '%2F',
        '%2f..%2f',
        '%2e%2e',
        '%25',
        '%u0041',
        '%FF%FE',
        '%0d%0aSet-Cookie:%20x=1',
      ),
    },
    { weight: 1, arbitrary: fc.constantFrom('.', '..', '...', '.html', '%2e', '', ' ', ';x=1') },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer({ min: 64, max: 5_000 }), fc.constantFrom('a', 'é', '%41', '9', '.'))
        .map(([n, c]) => c.repeat(n)),
    },
    { weight: 1, arbitrary: fc.constantFrom('ünïcödé', '客户', '😀', 'a\u0000b', '\u202etxt') },
  );
  const uuidLike = fc.oneof(
    fc.constantFrom(
      target.versionId,
      target.oldVersionId,
      target.noReconsentVersionId,
      target.otherTenantVersionId,
      target.versionId.toUpperCase(),
      '00000000-0000-4000-8000-000000000000',
    ),
    fc.uuid(),
  );
  const knownRoute = fc.oneof(
    fc
      .tuple(segment, segment)
      .map(([c, t]) => `/api/v1/customers/${c}/consents/templates/${t}/pending`),
    segment.map((c) => `/api/v1/customers/${c}/consents/decisions`),
    segment.map((t) => `/api/v1/consent-templates/${t}/latest`),
    segment.map((f) => `/api/content/${f}`),
    uuidLike.map((id) => `/api/content/${id}.html`),
  );
  const randomPath = fc
    .tuple(
      fc.constantFrom(
        '',
        '/api',
        '/api/v1',
        '/api/v1/customers',
        '/api/v1/consent-templates',
        '/api/content',
        '/api/docs',
        '/API/V1',
        '/api//v1',
        '/api/v2',
      ),
      fc.array(segment, { maxLength: 5 }),
      fc.constantFrom('', '', '/', '//'),
    )
    .map(([prefix, segments, end]) => `${prefix}/${segments.join('/')}${end}`);
  const fixedPath = fc.constantFrom(
    '/',
    '*',
    '/api',
    '/api/',
    '/api/v1',
    '/api/v1/',
    '/api/health',
    '/api/health/',
    '/api/v1/health',
    '/api/docs',
    '/api/docs/',
    '/api/docs/json',
    '/api/docs/yaml',
    '/api/docs/static/index.html',
    '/api/docs/static/../../v1/health',
    '//api/v1/health',
  );
  const query = fc.option(
    fc.oneof(
      fc.webQueryParameters(),
      anyString().map((s) => encodeURIComponent(s)),
      fc.constantFrom('a=1&a=2', '__proto__[x]=1', 'constructor[prototype][x]=1', '%', '&&&='),
    ),
    { nil: undefined },
  );
  const path = fc
    .tuple(
      fc.oneof(
        { weight: 4, arbitrary: knownRoute },
        { weight: 3, arbitrary: randomPath },
        { weight: 1, arbitrary: fixedPath },
      ),
      query,
    )
    .map(([p, q]) => (q === undefined ? p : `${p}?${q}`));

  const method = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('GET', 'POST') },
    {
      weight: 3,
      arbitrary: fc.constantFrom('PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE'),
    },
    { weight: 1, arbitrary: fc.constantFrom('PROPFIND', 'SEARCH', 'LOCK', 'MKCOL') },
  );

  const apiKey = fc.option(
    fc.oneof(
      { weight: 6, arbitrary: fc.constant(target.key) },
      { weight: 1, arbitrary: fc.constant(target.revokedKey) },
      { weight: 1, arbitrary: fc.constant(target.otherTenantKey) },
      { weight: 1, arbitrary: headerValue(80) },
      { weight: 1, arbitrary: headerValue(10).map((s) => `${target.key}${s}`) },
      { weight: 1, arbitrary: fc.constant(target.key.slice(0, 12)) },
    ),
    { nil: undefined, freq: 5 },
  );
  const contentType = fc.option(
    fc.oneof(
      {
        weight: 5,
        arbitrary: fc.constantFrom(
          'application/json',
          'application/json; charset=utf-8',
          'APPLICATION/JSON',
          'application/json;charset=latin1',
        ),
      },
      {
        weight: 2,
        arbitrary: fc.constantFrom(
          'text/plain',
          'text/html',
          'application/x-www-form-urlencoded',
          'multipart/form-data; boundary=x',
          'application/jsonx',
          'application/json-patch+json',
          'application/vnd.api+json',
          'application/xml',
          '',
          '*/*',
          'application/json, text/plain',
        ),
      },
      { weight: 1, arbitrary: headerValue(40) },
    ),
    { nil: undefined, freq: 4 },
  );
  const idempotencyKey = fc.option(
    fc.oneof(
      fc.constantFrom(...idempotencyPool),
      fc.string({ minLength: 1, maxLength: 300 }),
      headerValue(40),
      // Control characters and any code point: only the injector can deliver these (a real
      // client library refuses them), but what reaches the service must still be refused well.
      anyString(40),
      fc.constant(''),
    ),
    { nil: undefined, freq: 2 },
  );
  const requestId = fc.option(
    fc.oneof(
      fc.stringMatching(/^[A-Za-z0-9._:-]{1,128}$/),
      fc.constant('r'.repeat(129)),
      headerValue(40),
      fc.constant(''),
    ),
    { nil: undefined, freq: 2 },
  );
  const otherHeaders = fc.record(
    {
      'if-none-match': fc.oneof(fc.constantFrom('*', '"abc"', 'W/"x"', '""'), headerValue(20)),
      accept: fc.oneof(fc.constantFrom('application/json', 'text/html', '*/*'), headerValue(20)),
      'user-agent': headerValue(60),
      'content-encoding': fc.oneof(fc.constantFrom('gzip', 'br', 'identity'), headerValue(10)),
      'accept-encoding': fc.constantFrom('gzip', 'br, deflate', '*', 'identity;q=0'),
      'x-forwarded-for': fc.oneof(fc.ipV4(), headerValue(20)),
      'x-http-method-override': fc.constantFrom('DELETE', 'PUT', 'GET'),
      origin: fc.constantFrom('https://evil.example', 'null'),
    },
    { requiredKeys: [] },
  );

  const decisionValue = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('given', 'reject', 'withdraw') },
    {
      weight: 2,
      arbitrary: fc.constantFrom<unknown>(
        'GIVEN',
        ' given',
        'accept',
        '',
        1,
        true,
        null,
        ['given'],
        {},
      ),
    },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  );
  const versionValue = fc.oneof(
    { weight: 6, arbitrary: uuidLike },
    {
      weight: 2,
      arbitrary: fc.constantFrom<unknown>(
        '',
        'not-a-uuid',
        42,
        null,
        [target.versionId],
        { id: target.versionId },
        `${target.versionId} `,
        `{${target.versionId}}`,
      ),
    },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  );
  const nearValidDecision = fc
    .tuple(
      fc.record(
        { consent_version_id: versionValue, decision: decisionValue },
        { requiredKeys: [] },
      ),
      fc.option(fc.tuple(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 })), {
        nil: undefined,
        freq: 4,
      }),
    )
    .map(([body, extra]) => JSON.stringify(extra ? { ...body, [extra[0]]: extra[1] } : body));
  const body = fc.option(
    fc.oneof(
      { weight: 4, arbitrary: nearValidDecision },
      { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)) },
      { weight: 1, arbitrary: fc.uint8Array({ maxLength: 512 }).map((b) => Buffer.from(b)) },
      { weight: 1, arbitrary: anyString(200) },
      {
        weight: 1,
        arbitrary: fc.integer({ min: 16 * 1024 - 80, max: 48 * 1024 }).map((n) =>
          JSON.stringify({
            consent_version_id: target.versionId,
            decision: 'given',
            pad: 'x'.repeat(n),
          }),
        ),
      },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          '{',
          '{"decision":',
          'null',
          '""',
          '[]',
          '0',
          '\uFEFF{"decision":"given"}',
          '{"a":1}{"b":2}',
          '['.repeat(10_000),
          '{"__proto__":{"decision":"given"}}',
          '{"constructor":{"prototype":{"x":1}}}',
          `{"consent_version_id":"${target.versionId}","decision":"given","decision":"withdraw"}`,
          `{"consent_version_id":"${target.versionId}","decision":"given"`,
          `{'consent_version_id':'${target.versionId}','decision':'given'}`,
        ),
      },
    ),
    { nil: undefined, freq: 3 },
  );
  const remoteAddress = fc.oneof(
    { weight: 1, arbitrary: fc.constant('127.0.0.1') },
    { weight: 3, arbitrary: fc.ipV4() },
    { weight: 1, arbitrary: fc.ipV6() },
  );

  const header = (name: string, value: string | undefined): Record<string, string> =>
    value === undefined ? {} : { [name]: value };

  const randomRequest: fc.Arbitrary<FuzzRequest> = fc
    .record({
      method,
      url: path,
      apiKey,
      contentType,
      idempotencyKey,
      requestId,
      otherHeaders,
      extraHeaders: fc.dictionary(fc.stringMatching(/^x-[a-z0-9-]{1,20}$/), headerValue(30), {
        maxKeys: 2,
      }),
      payload: body,
      remoteAddress,
    })
    .map((r) => ({
      method: r.method,
      url: r.url,
      headers: {
        ...r.extraHeaders,
        ...r.otherHeaders,
        ...header('x-system-api-key', r.apiKey),
        ...header('content-type', r.contentType),
        ...header('idempotency-key', r.idempotencyKey),
        ...header('x-request-id', r.requestId),
      },
      ...(r.payload === undefined ? {} : { payload: r.payload }),
      remoteAddress: r.remoteAddress,
    }));

  /** Requests a well-behaved client makes, so that the success paths are exercised too. */
  const validRequest: fc.Arbitrary<FuzzRequest> = fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .record({
          customer: fc.constantFrom(...customerPool),
          version: fc.constantFrom(
            target.versionId,
            target.oldVersionId,
            target.noReconsentVersionId,
          ),
          decision: fc.constantFrom('given', 'reject', 'withdraw'),
          idempotencyKey,
          requestId,
        })
        .map((r) => ({
          method: 'POST',
          url: `/api/v1/customers/${encodeURIComponent(r.customer)}/consents/decisions`,
          headers: {
            'x-system-api-key': target.key,
            'content-type': 'application/json',
            ...header('idempotency-key', r.idempotencyKey),
            ...header('x-request-id', r.requestId),
          },
          payload: JSON.stringify({ consent_version_id: r.version, decision: r.decision }),
          remoteAddress: '10.0.0.1',
        })),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          fc.constantFrom(...customerPool),
          fc.constantFrom(target.code, target.noReconsentCode, target.draftOnlyCode),
        )
        .map(([customer, code]) => ({
          method: 'GET',
          url: `/api/v1/customers/${encodeURIComponent(customer)}/consents/templates/${code}/pending`,
          headers: { 'x-system-api-key': target.key },
          remoteAddress: '10.0.0.2',
        })),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          fc.constantFrom(target.code, target.noReconsentCode, target.otherTenantCode),
          fc.option(fc.constantFrom('*', '"nope"'), { nil: undefined }),
        )
        .map(([code, etag]) => ({
          method: 'GET',
          url: `/api/v1/consent-templates/${code}/latest`,
          headers: { 'x-system-api-key': target.key, ...header('if-none-match', etag) },
          remoteAddress: '10.0.0.3',
        })),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          '/api/health',
          '/api/v1/health',
          `/api/content/${target.versionId}.html`,
          `/api/content/${target.oldVersionId.toUpperCase()}.html`,
        )
        .map((url) => ({ method: 'GET', url, headers: {}, remoteAddress: '10.0.0.4' })),
    },
  );

  /**
   * A decision request that passes the key check and the router, so that what follows it (body
   * size, media type, JSON parsing, validation, the rules, idempotency) meets the random parts.
   */
  const nearValidRequest: fc.Arbitrary<FuzzRequest> = fc
    .record({
      method: fc.oneof(
        { weight: 9, arbitrary: fc.constant('POST') },
        { weight: 1, arbitrary: method },
      ),
      customer: fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(...customerPool) },
        { weight: 1, arbitrary: segment },
      ),
      contentType,
      idempotencyKey,
      requestId,
      payload: body,
    })
    .map((r) => ({
      method: r.method,
      url: `/api/v1/customers/${r.customer}/consents/decisions`,
      headers: {
        'x-system-api-key': target.key,
        ...header('content-type', r.contentType),
        ...header('idempotency-key', r.idempotencyKey),
        ...header('x-request-id', r.requestId),
      },
      ...(r.payload === undefined ? {} : { payload: r.payload }),
      remoteAddress: '10.0.0.5',
    }));

  return {
    request: fc.oneof(
      { weight: 3, arbitrary: validRequest },
      { weight: 3, arbitrary: nearValidRequest },
      { weight: 5, arbitrary: randomRequest },
    ),
    segment,
    method,
  };
}

/** The path the server sees (the injector resolves the URL as a client library would). */
function pathOf(url: string): string {
  const base = 'http://localhost';
  return (url.startsWith('//') ? new URL(base + url) : new URL(url, base)).pathname;
}

/** The three exceptions to the `data` envelope (contract section 2) and the docs. */
function envelopeExempt(path: string): boolean {
  return (
    path === '/api/health' ||
    path === '/api/v1/health' ||
    /^\/api\/content\/[^/]+\.html$/i.test(path) ||
    path === '/api/docs' ||
    path.startsWith('/api/docs/')
  );
}

/** Checks one response against the contract; throws with the request and response on failure. */
function checkResponse(
  request: { method: string; path: string; headers: Record<string, string> },
  response: { status: number; headers: Record<string, unknown>; body: string },
): void {
  const fail = (why: string): never => {
    throw new Error(
      `${why}\nrequest: ${JSON.stringify(request).slice(0, 2_000)}\nresponse: ${response.status} ${JSON.stringify(response.headers)}\n${response.body.slice(0, 2_000)}`,
    );
  };
  const { status, headers, body } = response;
  if (!(status >= 100 && status < 500)) fail(`status ${status}`);

  const requestId = headers['x-request-id'];
  if (typeof requestId !== 'string' || !requestIdPattern.test(requestId)) {
    fail(`bad or missing X-Request-Id ${JSON.stringify(requestId)}`);
  }
  const offered = request.headers['x-request-id'];
  if (offered !== undefined && requestIdPattern.test(offered) && requestId !== offered) {
    fail(`X-Request-Id ${JSON.stringify(requestId)} is not the caller's ${offered}`);
  }

  const path = request.path;
  const head = request.method.toUpperCase() === 'HEAD';
  if (status >= 400) {
    if (headers['content-type'] !== 'application/json; charset=utf-8') {
      fail(`error with content-type ${String(headers['content-type'])}`);
    }
    if (head && body === '') return;
    let parsed: any;
    try {
      parsed = JSON.parse(body);
    } catch {
      fail('error body is not JSON');
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      fail('error body is not an object');
    }
    const keys = Object.keys(parsed);
    if (!keys.every((key) => ['code', 'message', 'details'].includes(key))) {
      fail(`error body has keys ${keys.join(', ')}`);
    }
    if (typeof parsed.code !== 'string' || !catalogue.has(parsed.code)) {
      fail(`code ${JSON.stringify(parsed.code)} is not in the catalogue`);
    }
    if (codeForStatus[status] !== parsed.code) fail(`status ${status} with code ${parsed.code}`);
    if (typeof parsed.message !== 'string' || parsed.message === '') fail('no message');
    if (parsed.details !== undefined) {
      if (!Array.isArray(parsed.details)) fail('details is not an array');
      for (const detail of parsed.details) {
        if (typeof detail?.field !== 'string' || typeof detail?.issue !== 'string') {
          fail(`detail ${JSON.stringify(detail)}`);
        }
      }
    }
    if (status === 405 && typeof headers.allow !== 'string') fail('405 without Allow');
    if (status === 429 && headers['retry-after'] === undefined) fail('429 without Retry-After');
    try {
      expectNoInternals(body);
    } catch (error) {
      fail((error as Error).message);
    }
    return;
  }
  if (status === 304) {
    if (body !== '') fail('304 with a body');
    return;
  }
  if (status >= 300) {
    // Only the docs UI redirects (to its own pages).
    if (!path.startsWith('/api/docs')) fail(`redirect ${status} outside the docs`);
    return;
  }
  // 1xx never reaches here through the injector; 2xx:
  if (head || status === 204) return;
  if (path === '/api/health' || path === '/api/v1/health') {
    if (body !== '{"status":"ok","success":true}') fail('health body');
    return;
  }
  if (envelopeExempt(path)) return;
  const type = String(headers['content-type'] ?? '');
  if (!/^application\/json\b/.test(type)) fail(`2xx with content-type ${type}`);
  let parsed: any;
  try {
    parsed = JSON.parse(body);
  } catch {
    fail('2xx body is not JSON');
  }
  if (
    parsed === null ||
    typeof parsed !== 'object' ||
    Array.isArray(parsed) ||
    Object.keys(parsed).join() !== 'data'
  ) {
    fail('2xx body is not {"data": ...}');
  }
}

describe.each(stores)('fuzzing the HTTP surface on $name', (store) => {
  let t: TestApp;
  let target: Target;
  let tenant: SeededTenant;
  const statuses = new Map<number, number>();

  beforeAll(async () => {
    t = await startTestApp(store);
    let other: SeededTenant;
    [tenant, other] = await Promise.all([seedTenant(t.db), seedTenant(t.db)]);
    const id = tenant.tenant.id;
    const code = await seedTemplate(t.db, id);
    const oldVersion = await publish(t.db, id, code, { content_html: '<p>Old text</p>' });
    const version = await publish(t.db, id, code, { content_html: '<p>Current text</p>' });
    const noReconsentCode = await seedTemplate(t.db, id);
    const noReconsent = await publish(t.db, id, noReconsentCode, { allow_reconsent: false });
    const draftOnlyCode = await seedTemplate(t.db, id);
    const otherTenantCode = await seedTemplate(t.db, other.tenant.id);
    const otherVersion = await publish(t.db, other.tenant.id, otherTenantCode);
    const revoked = await createApiKey(t.db, id, { name: 'revoked key' });
    await t.db.transaction().execute((trx) => revokeApiKey(trx, id, revoked.id));
    target = {
      key: tenant.apiKey.key,
      revokedKey: revoked.key,
      otherTenantKey: other.apiKey.key,
      code,
      noReconsentCode,
      draftOnlyCode,
      otherTenantCode,
      versionId: version.consent_version_id,
      oldVersionId: oldVersion.consent_version_id,
      noReconsentVersionId: noReconsent.consent_version_id,
      otherTenantVersionId: otherVersion.consent_version_id,
    };
  });
  afterAll(async () => {
    await t?.close();
  });

  it(
    `random requests through inject (seed ${seed}, ${injectRuns} runs): never a 5xx, errors in the contract's shape, a request id on every response, 2xx in the data envelope`,
    async () => {
      const { request } = arbitraries(target);
      let ran = 0;
      await fc.assert(
        fc.asyncProperty(request, async (r) => {
          const options: InjectOptions = {
            method: r.method as InjectOptions['method'],
            url: r.url,
            headers: r.headers,
            remoteAddress: r.remoteAddress,
            ...(r.payload === undefined ? {} : { payload: r.payload }),
          };
          const response: LightMyRequestResponse = await t.app.inject(options);
          ran += 1;
          statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
          checkResponse(
            { ...r, path: pathOf(r.url) },
            {
              status: response.statusCode,
              headers: response.headers,
              body: response.body,
            },
          );
        }),
        { seed, numRuns: injectRuns },
      );
      expect(ran, 'cases run').toBe(injectRuns);
      // The fuzzer reached the success paths and a spread of refusals, not only one kind of error.
      const count = (predicate: (status: number) => boolean) =>
        [...statuses].filter(([status]) => predicate(status)).reduce((sum, [, n]) => sum + n, 0);
      expect(
        count((s) => s === 201),
        JSON.stringify([...statuses]),
      ).toBeGreaterThan(10);
      expect(count((s) => s >= 200 && s < 300)).toBeGreaterThan(injectRuns / 10);
      for (const status of [400, 401, 404, 405, 409, 413, 415, 422]) {
        expect(
          statuses.get(status) ?? 0,
          `no ${status} among ${JSON.stringify([...statuses])}`,
        ).toBeGreaterThan(0);
      }
    },
    budget(180_000),
  );

  it(
    `raw HTTP/1.1 requests over loopback (seed ${seed}, ${rawRuns} runs): literal dots, raw bytes and malformed request lines still get a contract answer`,
    async () => {
      const port = await listeningPort(t.app);
      let ran = 0;
      const { segment } = arbitraries(target);
      const rawSegment = fc.oneof(
        { weight: 3, arbitrary: segment },
        { weight: 2, arbitrary: fc.constantFrom('..', '.', '...', '%2e%2e', '..;', '..\\..') },
        // Raw bytes the request line may not hold: the parser must refuse them, in our shape.
        {
          weight: 1,
          arbitrary: fc.constantFrom('a b', 'a\tb', 'a\u0001b', 'a\u007fb', 'é', '\u00ff'),
        },
      );
      const rawPath = fc
        .tuple(
          fc.constantFrom('/api/v1', '/api', '/api/content', '/api/docs', ''),
          fc.array(rawSegment, { maxLength: 4 }),
        )
        .map(([prefix, segments]) => `${prefix}/${segments.join('/')}`);
      const target_ = fc.oneof(
        { weight: 4, arbitrary: rawPath },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            '*',
            'http://127.0.0.1/api/health',
            'api/health',
            '/api/v1/health#frag',
            `/api/v1/customers/../consent-templates/${target.code}/latest`,
            `/api/v1/customers/x/../../consent-templates/${target.code}/latest`,
            `/api/v1/customers/cust-1/consents/templates/${target.code}/./pending`,
            '/api/v1/health/..',
            '/api/health/../v1/health',
            `/api/content/../content/${target.versionId}.html`,
            'x'.repeat(20_000),
          ),
        },
      );
      const rawMethod = fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom('GET', 'POST', 'HEAD', 'DELETE', 'OPTIONS') },
        { weight: 1, arbitrary: fc.constantFrom('get', 'G ET', 'GET\t', 'FOO', 'CONNECT', '') },
      );
      const version = fc.oneof(
        { weight: 8, arbitrary: fc.constant('HTTP/1.1') },
        {
          weight: 1,
          arbitrary: fc.constantFrom('HTTP/1.0', 'HTTP/2.0', 'HTTP/1.1x', 'HTTP/9', ''),
        },
      );
      const rawHeaderLines = fc.array(
        fc.oneof(
          fc.constantFrom(
            `x-system-api-key: ${target.key}`,
            'x-system-api-key: nope',
            'content-type: application/json',
            'x-request-id: raw-fuzz-1',
            'x-request-id: bad id',
            'no-colon-here',
            ': empty-name',
            ' folded: continuation',
            'content-length: 5',
            'content-length: -1',
            'transfer-encoding: chunked',
            'transfer-encoding: gzip, chunked',
            'x-ctl: a\u0001b',
            'idempotency-key: a\u0001b',
            'idempotency-key: \u007f',
            'idempotency-key: \u00e9t\u00e9',
            'x-nul: a\u0000b',
            `x-long: ${'y'.repeat(20_000)}`,
          ),
          fc
            .tuple(fc.stringMatching(/^[A-Za-z-]{1,12}$/), headerValue(20))
            .map(([n, v]) => `${n}: ${v}`),
        ),
        { maxLength: 4 },
      );
      const rawBody = fc.option(
        fc.oneof(
          fc.constant(JSON.stringify({ consent_version_id: target.versionId, decision: 'given' })),
          fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
          anyString(50),
        ),
        { nil: undefined },
      );

      await fc.assert(
        fc.asyncProperty(
          fc.record({
            method: rawMethod,
            target: target_,
            version,
            lines: rawHeaderLines,
            body: rawBody,
          }),
          async (r) => {
            const bodyBytes = r.body === undefined ? undefined : Buffer.from(r.body, 'utf8');
            // The body is always framed by a Content-Length of our own (the last one wins nothing:
            // a duplicate is a malformed request the server must refuse), so the server never waits
            // for bytes that are not coming.
            const framing = bodyBytes === undefined ? [] : [`Content-Length: ${bodyBytes.length}`];
            const lines = [
              `${r.method} ${r.target} ${r.version}`,
              'Host: 127.0.0.1',
              'Connection: close',
              ...r.lines.filter(
                (line) =>
                  bodyBytes === undefined || !/^(content-length|transfer-encoding):/i.test(line),
              ),
              ...framing,
            ];
            const text = `${lines.join('\r\n')}\r\n\r\n${r.body ?? ''}`;
            // The caller's own id, when it sent exactly one (two are joined into one bad value).
            const idLines = r.lines.filter((line) => /^x-request-id:/i.test(line));
            const sentId =
              idLines.length === 1 && idLines[0] === 'x-request-id: raw-fuzz-1'
                ? 'raw-fuzz-1'
                : undefined;
            let response: RawResponse;
            ran += 1;
            try {
              response = await rawExchange(port, text);
            } catch (error) {
              throw new Error(
                `no answer (${(error as Error).message}) to ${JSON.stringify(text.slice(0, 500))}`,
              );
            }
            // Node's HTTP server hangs up on CONNECT (a proxy's method) without an answer, unless
            // the application listens for it; no answer is no contract breach.
            if (Number.isNaN(response.status) && r.method === 'CONNECT') return;
            if (Number.isNaN(response.status)) {
              throw new Error(`no HTTP answer to ${JSON.stringify(text.slice(0, 500))}`);
            }
            // A chunked 2xx (a docs file) is not parsed here: only its status and headers count.
            const chunked = /chunked/i.test(response.headers['transfer-encoding'] ?? '');
            // The path as the server sees it: absolute-form targets name their path after the host.
            const path = /^https?:\/\//.test(r.target)
              ? new URL(r.target).pathname
              : (r.target.split(/[?#]/, 1)[0] ?? '');
            checkResponse(
              {
                method: r.method,
                path,
                // A request the HTTP parser refused (400) was never read, its request id included.
                headers: sentId && response.status !== 400 ? { 'x-request-id': sentId } : {},
              },
              {
                status: response.status,
                headers: response.headers,
                body: chunked && response.status < 300 ? '' : response.body,
              },
            );
          },
        ),
        { seed, numRuns: rawRuns },
      );
      expect(ran, 'cases run').toBe(rawRuns);
    },
    budget(180_000),
  );
});
