import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, serviceLogger } from '../../src/app/app.js';
import { loadConfig } from '../../src/platform/config.js';
import { createDb, type Db } from '../../src/platform/db.js';
import { migrateToLatest } from '../../src/platform/migrate.js';
import { testDataKey, testLogKeys } from '../helpers/app.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { sqliteStore } from '../helpers/stores.js';
import { testPasswordHashCost } from '../helpers/time.js';

describe('the request log', () => {
  const lines: Array<Record<string, unknown>> = [];
  let app: FastifyInstance;
  let db: Db;
  let drop: () => Promise<void>;
  let a: SeededTenant;
  let code: string;
  let versionId: string;

  beforeAll(async () => {
    const created = await sqliteStore.create();
    drop = created.drop;
    const config = loadConfig({
      DATABASE_URL: created.databaseUrl,
      LOG_SIGNING_KEY: testLogKeys.signerKey,
      DATA_ENCRYPTION_KEY: testDataKey.toString('base64'),
      PASSWORD_HASH_COST: String(testPasswordHashCost),
    });
    db = createDb(config);
    await migrateToLatest(db, testDataKey);
    a = await seedTenant(db);
    code = await seedTemplate(db, a.tenant.id);
    versionId = (await publish(db, a.tenant.id, code)).consent_version_id;
    // The service's own logger settings, at its most verbose level, writing where the test can
    // read them.
    app = await buildApp(config, db, {
      logger: {
        ...serviceLogger('trace'),
        stream: { write: (line: string) => lines.push(JSON.parse(line)) },
      },
    });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    await db.destroy();
    await drop();
  });

  it('says once that a request completed, with its id, method, path, status, time and address, and never the key', async () => {
    lines.length = 0;
    const response = await app.inject({
      method: 'GET',
      url: '/api/v1/consent-templates/none_such/latest',
      headers: a.headers,
      remoteAddress: '198.51.100.23',
    });
    expect(response.statusCode).toBe(404);
    const requestLines = lines.filter(
      (l) => l.reqId === response.headers['x-request-id'] && l.msg === 'request completed',
    );
    expect(requestLines).toEqual([
      expect.objectContaining({
        msg: 'request completed',
        level: 30,
        method: 'GET',
        url: '/api/v1/consent-templates/none_such/latest',
        statusCode: 404,
        responseTime: expect.any(Number),
        remoteAddress: '198.51.100.23',
      }),
    ]);
    const key = a.headers['x-system-api-key'] as string;
    expect(JSON.stringify(lines)).not.toContain(key);
  });

  /** Every request a client might send a key in, by mistake or on purpose. */
  function requestsCarrying(key: string): Array<{ label: string; request: InjectOptions }> {
    const encoded = key.replaceAll('_', '%5F');
    const latest = `/api/v1/consent-templates/${code}/latest`;
    const decisions = '/api/v1/customers/someone/consents/decisions';
    const get = (label: string, url: string, headers: Record<string, string> = a.headers) => ({
      label,
      request: { method: 'GET' as const, url, headers },
    });
    const post = (label: string, payload: string) => ({
      label,
      request: {
        method: 'POST' as const,
        url: decisions,
        headers: { ...a.headers, 'content-type': 'application/json' },
        payload,
      },
    });
    return [
      get('in the header', latest, { 'x-system-api-key': key }),
      get('in the header, with a typo in its name', latest, { 'x-system-api-keys': key }),
      get('in the Authorization header', latest, { ...a.headers, authorization: `Bearer ${key}` }),
      get('as x-system-api-key in the query', `${latest}?x-system-api-key=${key}`, {}),
      get('as api_key in the query', `${latest}?api_key=${key}&lang=en`),
      get('as apikey in the query', `${latest}?lang=en&apikey=${key}`),
      get('as key in the query', `${latest}?key=${key}`),
      get('as token in the query', `${latest}?token=${key}`),
      get('as password in the query', `${latest}?password=${key}`),
      get('as API_KEY in the query', `${latest}?API_KEY=${key}`),
      get('percent-encoded as api_key', `${latest}?api_key=${encoded}`),
      get('in a parameter of another name', `${latest}?q=${key}`),
      get('percent-encoded in a parameter of another name', `${latest}?q=${encoded}`),
      get('in the query with a bad key header', `${latest}?q=${key}`, { 'x-system-api-key': 'x' }),
      get(
        'in the path, as a customer id',
        `/api/v1/customers/${key}/consents/templates/${code}/pending`,
      ),
      get(
        'in the path, percent-encoded',
        `/api/v1/customers/${encoded}/consents/templates/${code}/pending`,
      ),
      get('in an unknown path', `/api/v1/keys/${key}`),
      get('in the query of an unknown path', `/api/v1/no/such/route?api_key=${key}`),
      get('in an undecodable path', `/api/v1/%ZZ/${key}`),
      get('in an undecodable path, without a key header', `/api/v1/%ZZ/${key}`, {}),
      get('in an undecodable path outside /api/v1', `/api/%ZZ/${key}?token=${key}`, {}),
      get(
        'in a path parameter over the router limit',
        `/api/v1/customers/${key.repeat(5)}/consents`,
      ),
      get('in the query of the content file', `/api/content/${versionId}.html?key=${key}`, {}),
      get('in the query of the health check', `/api/health?x-system-api-key=${key}`, {}),
      get('in the query of a back-office page', `/backoffice/sign-in?token=${key}`, {}),
      {
        label: 'with a wrong method',
        request: { method: 'DELETE', url: `${latest}?api_key=${key}`, headers: a.headers },
      },
      post('in a malformed body', `{"decision": "${key}`),
      post('in a body that is not JSON', key),
      post('in an unknown body field', JSON.stringify({ decision: 'given', api_key: key })),
      post('as a field value', JSON.stringify({ consent_version_id: key, decision: key })),
      post('in a body with a repeated key', `{"decision":"given","decision":"${key}"}`),
    ];
  }

  it('never writes an API key, wherever a request carries it, on any log line', async () => {
    const key = a.apiKey.key;
    // csk_ + 12 hex + _ + the secret (api-keys/keys.ts); the secret may itself hold a `_`.
    const secret = key.slice('csk_'.length + 12 + 1);
    expect(secret).toHaveLength(43);
    for (const { label, request } of requestsCarrying(key)) {
      lines.length = 0;
      const response = await app.inject(request);
      const requestLines = lines.filter((l) => l.reqId === response.headers['x-request-id']);
      // The request was logged once, and none of its lines, nor any other line, shows the secret.
      expect(
        requestLines.filter((l) => l.msg === 'request completed'),
        label,
      ).toHaveLength(1);
      for (const line of lines) expect(JSON.stringify(line), label).not.toContain(secret);
    }
  });

  it('names what it redacted in a logged URL, and keeps the rest of the URL', async () => {
    const key = a.apiKey.key;
    const prefix = key.slice(0, 'csk_'.length + 12);
    const cases: [string, string][] = [
      [`/api/health?api_key=${key}&lang=en`, '/api/health?api_key=[Redacted]&lang=en'],
      [`/api/health?lang=en&Password=hunter2`, '/api/health?lang=en&Password=[Redacted]'],
      [`/api/health?q=${key}`, `/api/health?q=${prefix}_[Redacted]`],
      [`/api/v1/keys/${key}/x`, `/api/v1/keys/${prefix}_[Redacted]/x`],
      ['/api/health?lang=en&keyword=k', '/api/health?lang=en&keyword=k'],
    ];
    for (const [url, logged] of cases) {
      lines.length = 0;
      const response = await app.inject({ method: 'GET', url, headers: a.headers });
      const completed = lines.find(
        (l) => l.reqId === response.headers['x-request-id'] && l.msg === 'request completed',
      );
      expect(completed?.url, url).toBe(logged);
    }
  });
});
