import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestApp, type TestApp } from '../helpers/app.js';
import { storeAgnostic } from '../helpers/stores.js';

const latestPath = '/api/v1/consent-templates/{template_code}/latest';
const pendingPath = '/api/v1/customers/{customer_id}/consents/templates/{template_code}/pending';
const decisionsPath = '/api/v1/customers/{customer_id}/consents/decisions';
const keyedOperations: [string, string][] = [
  ['get', latestPath],
  ['get', pendingPath],
  ['post', decisionsPath],
  ['get', '/api/v1/decisions/{decision_id}/receipt'],
  ['get', '/api/v1/log/checkpoint'],
  ['get', '/api/v1/log/consistency'],
  ['get', '/api/v1/log/key'],
];

describe.each(storeAgnostic)('OpenAPI document on $name', (store) => {
  let t: TestApp;
  let doc: any;

  beforeAll(async () => {
    t = await startTestApp(store);
    const response = await t.app.inject({ method: 'GET', url: '/api/docs/json' });
    expect(response.statusCode).toBe(200);
    doc = json(response);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Follows same-origin redirects, as a browser would, up to five hops. */
  async function follow(url: string): Promise<LightMyRequestResponse> {
    let current = url;
    for (let hop = 0; hop < 5; hop += 1) {
      const response = await t.app.inject({ method: 'GET', url: current });
      if (response.statusCode < 300 || response.statusCode >= 400) return response;
      const location = response.headers.location;
      expect(typeof location).toBe('string');
      current = new URL(String(location), `http://localhost${current}`).pathname;
    }
    throw new Error(`too many redirects from ${url}`);
  }

  it('GET /api/docs/json answers JSON without a key', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/docs/json' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
  });

  it('is an OpenAPI 3 document with a title and the service version', () => {
    expect(doc.openapi).toMatch(/^3\.\d+\.\d+$/);
    expect(typeof doc.info?.title).toBe('string');
    expect(doc.info.title.length).toBeGreaterThan(0);
    expect(typeof doc.info?.version).toBe('string');
  });

  it('documents the decision log: receipt (200 and 202), checkpoint, consistency and key', () => {
    const receipt = doc.paths['/api/v1/decisions/{decision_id}/receipt'].get;
    expect(Object.keys(receipt.responses)).toEqual(
      expect.arrayContaining(['200', '202', '401', '404']),
    );
    const query = (doc.paths['/api/v1/log/consistency'].get.parameters ?? []) as any[];
    expect(
      query
        .filter((p) => p.in === 'query')
        .map((p) => p.name)
        .sort(),
    ).toEqual(['from', 'to']);
    expect(Object.keys(doc.paths['/api/v1/log/checkpoint'].get.responses)).toContain('200');
    expect(Object.keys(doc.paths['/api/v1/log/key'].get.responses)).toContain('200');
  });

  it('lists the four endpoints of the API with their methods', () => {
    expect(Object.keys(doc.paths?.['/api/health'] ?? {})).toContain('get');
    expect(Object.keys(doc.paths?.[latestPath] ?? {})).toContain('get');
    expect(Object.keys(doc.paths?.[pendingPath] ?? {})).toContain('get');
    expect(Object.keys(doc.paths?.[decisionsPath] ?? {})).toContain('post');
  });

  it('declares the x-system-api-key header as an apiKey security scheme', () => {
    const schemes = Object.values(doc.components?.securitySchemes ?? {}) as any[];
    expect(schemes).toContainEqual(
      expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-system-api-key' }),
    );
  });

  it.each(keyedOperations)('%s %s requires the x-system-api-key scheme', (method, path) => {
    const schemes = doc.components?.securitySchemes ?? {};
    const keyScheme = Object.entries(schemes).find(
      ([, scheme]: [string, any]) => scheme.name === 'x-system-api-key',
    )?.[0];
    expect(keyScheme).toBeDefined();
    const operation = doc.paths[path][method];
    const security: Record<string, unknown>[] = operation.security ?? doc.security ?? [];
    expect(security.some((requirement) => keyScheme! in requirement)).toBe(true);
  });

  it('the health check needs no key', () => {
    const operation = doc.paths['/api/health'].get;
    const security: Record<string, unknown>[] = operation.security ?? doc.security ?? [];
    expect(security.every((requirement) => Object.keys(requirement).length === 0)).toBe(true);
  });

  it('the path parameters carry the contract patterns', () => {
    const params = (path: string, method: string) =>
      (doc.paths[path][method].parameters ?? []) as any[];
    const templateCode = params(latestPath, 'get').find((p) => p.name === 'template_code');
    expect(templateCode).toMatchObject({ in: 'path', required: true });
    expect(templateCode.schema.pattern).toBe('^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$');
    const customerId = params(decisionsPath, 'post').find((p) => p.name === 'customer_id');
    expect(customerId).toMatchObject({ in: 'path', required: true });
    expect(customerId.schema.pattern).toBe('^[A-Za-z0-9._:@+-]{1,128}$');
  });

  it('the decision body is consent_version_id and decision, with only the optional explicit act and who acted beside them', () => {
    const schema = doc.paths[decisionsPath].post.requestBody?.content?.['application/json']?.schema;
    expect(schema).toBeDefined();
    expect(Object.keys(schema.properties).sort()).toEqual([
      'acted_by',
      'consent_version_id',
      'decision',
      'explicit',
    ]);
    expect([...schema.required].sort()).toEqual(['consent_version_id', 'decision']);
    expect(Object.keys(schema.properties.explicit.properties).sort()).toEqual([
      'method',
      'text_shown',
    ]);
    expect(Object.keys(schema.properties.acted_by.properties).sort()).toEqual([
      'age_band',
      'co_consent',
      'court_order',
      'reference',
      'role',
    ]);
    expect(schema.properties.acted_by.required).toEqual(['role']);
    expect(schema.properties.acted_by.properties.role.enum).toEqual([
      'subject',
      'parent',
      'guardian',
      'curator',
      'authorised',
    ]);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.decision.enum).toEqual(['given', 'reject', 'withdraw']);
  });

  it('the decisions endpoint documents the optional Idempotency-Key header', () => {
    const header = (doc.paths[decisionsPath].post.parameters ?? []).find(
      (p: any) => p.in === 'header' && String(p.name).toLowerCase() === 'idempotency-key',
    );
    expect(header).toBeDefined();
    expect(header.required).toBeFalsy();
  });

  it('the endpoints document their success and error responses', () => {
    expect(Object.keys(doc.paths[latestPath].get.responses)).toEqual(
      expect.arrayContaining(['200', '304']),
    );
    expect(Object.keys(doc.paths[pendingPath].get.responses)).toContain('200');
    expect(Object.keys(doc.paths[decisionsPath].post.responses)).toEqual(
      expect.arrayContaining(['200', '201']),
    );
    for (const [method, path] of keyedOperations) {
      const codes = Object.keys(doc.paths[path][method].responses);
      expect(codes.some((c) => c.startsWith('4'))).toBe(true);
    }
  });

  it('GET /api/docs answers an HTML page (after any redirect) without a key', async () => {
    const response = await follow('/api/docs');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.body).toMatch(/<html/i);
  });
});
