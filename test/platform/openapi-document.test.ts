import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestApp, type TestApp } from '../helpers/app.js';
import { storeAgnostic } from '../helpers/stores.js';

// The contract's catalogue (section 3): the code each status answers with.
const codeOfStatus: Record<string, string> = {
  '400': '1001',
  '401': '1002',
  '403': '1003',
  '404': '1004',
  '409': '1005',
  '413': '1006',
  '415': '1007',
  '422': '1010',
  '429': '1008',
  '500': '1000',
  '503': '1009',
};

const latest = '/api/v1/consent-templates/{template_code}/latest';
const pending = '/api/v1/customers/{customer_id}/consents/templates/{template_code}/pending';
const decisions = '/api/v1/customers/{customer_id}/consents/decisions';
const history = '/api/v1/customers/{customer_id}/consents';
const asOf = '/api/v1/customers/{customer_id}/consents/templates/{template_code}/as-of';
const receipt = '/api/v1/decisions/{decision_id}/receipt';
const cookieReceipt = '/api/v1/cookie-decisions/{decision_id}/receipt';

// What each operation may refuse, as the contract and docs/api-behaviour.md say it: every keyed
// operation 401, 429, 500 and 503; a parameter that fails validation 400; an unknown template,
// version, decision, product or channel 404; a decision's, a channel change's or a status
// request's body 413 and 415, a decision's rules 409, a decision's or a channel change's key 422.
const keyed = ['401', '429', '500', '503'];
const expectedErrors: [string, string, string[]][] = [
  ['get', latest, ['400', '404', ...keyed]],
  ['get', pending, ['400', '404', ...keyed]],
  ['post', decisions, ['400', '404', '409', '413', '415', '422', ...keyed]],
  ['get', history, ['400', ...keyed]],
  ['get', asOf, ['400', '404', ...keyed]],
  ['get', receipt, ['400', '404', ...keyed]],
  ['get', `${receipt}/iso-27560`, ['400', '404', ...keyed]],
  ['get', `${receipt}/kantara`, ['400', '404', ...keyed]],
  ['get', cookieReceipt, ['400', '404', ...keyed]],
  ['get', `${cookieReceipt}/iso-27560`, ['400', '404', ...keyed]],
  ['get', `${cookieReceipt}/kantara`, ['400', '404', ...keyed]],
  ['get', '/api/v1/cookie-decisions', ['400', '404', ...keyed]],
  ['get', '/api/v1/cookie-decisions/{decision_id}', ['400', '404', ...keyed]],
  [
    'put',
    '/api/v1/customers/{customer_id}/channels/{product_code}/{channel}',
    ['400', '404', '413', '415', '422', ...keyed],
  ],
  ['get', '/api/v1/customers/{customer_id}/channels', ['400', ...keyed]],
  ['post', '/api/v1/consents/status', ['400', '404', '413', '415', ...keyed]],
  ['get', '/api/v1/channel-changes/{change_id}/receipt', ['400', '404', ...keyed]],
  [
    'put',
    '/api/v1/customers/{customer_id}/consents/decisions/{decision_id}/partners/{partner_code}',
    ['400', '404', '409', '413', '415', '422', ...keyed],
  ],
  [
    'get',
    '/api/v1/customers/{customer_id}/consents/decisions/{decision_id}/partners',
    ['400', '404', ...keyed],
  ],
  ['get', '/api/v1/partner-block-changes/{change_id}/receipt', ['400', '404', ...keyed]],
  ['get', '/api/v1/customers/{customer_id}/evidence', ['400', '404', ...keyed]],
  ['get', '/api/v1/log/checkpoint', keyed],
  ['get', '/api/v1/log/consistency', ['400', ...keyed]],
  ['get', '/api/v1/log/key', keyed],
  ['get', '/api/content/{file}', ['400', '404', '500', '503']],
  ['get', '/api/content/{id}/{file}', ['400', '404', '500', '503']],
  ['get', '/cookies/v1/{scope}/banner.js', ['404', '500', '503']],
  [
    'post',
    '/cookies/v1/{scope}/decisions',
    ['400', '403', '404', '409', '413', '415', '429', '500', '503'],
  ],
];
const publicOperations = [
  '/api/health',
  '/api/v1/health',
  '/api/content/{file}',
  '/api/content/{id}/{file}',
  '/cookies/v1/{scope}/banner.js',
  '/cookies/v1/{scope}/decisions',
  '/cookies/v1/{scope}/customer-choice',
  '/cookies/v1/{scope}/declaration.json',
  '/cookies/v1/{scope}/declaration',
];

const methods = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

describe.each(storeAgnostic)('the OpenAPI document as a contract, on $name', (store) => {
  let t: TestApp;
  let doc: any;
  let operations: { method: string; path: string; operation: any }[];

  beforeAll(async () => {
    t = await startTestApp(store);
    const response = await t.app.inject({ method: 'GET', url: '/api/docs/json' });
    expect(response.statusCode).toBe(200);
    doc = json(response);
    operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item as Record<string, any>)
        .filter(([method]) => methods.includes(method))
        .map(([method, operation]) => ({ method, path, operation })),
    );
  });
  afterAll(async () => {
    await t?.close();
  });

  it('is OpenAPI 3.1, so that it can describe the webhooks', () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
  });

  it("names this instance's PUBLIC_BASE_URL as its server", () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: 'https://consent.test' })]);
  });

  it('lists only the API and the public cookie endpoints: none of the back-office pages', () => {
    const paths = Object.keys(doc.paths);
    expect(paths.length).toBeGreaterThan(10);
    expect(
      paths.filter((path) => !path.startsWith('/api/') && !path.startsWith('/cookies/v1/')),
    ).toEqual([]);
  });

  it('gives every operation an operationId, each one its own', () => {
    const ids = operations.map(({ operation }) => operation.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[A-Za-z][A-Za-z0-9]*$/.test(id))).toBe(
      true,
    );
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.paths[decisions].post.operationId).toBe('recordDecision');
    expect(doc.paths[latest].get.operationId).toBe('getLatestVersion');
  });

  it('says that the health check, the content files and the cookie endpoints need no key (security: [])', () => {
    for (const { path, operation } of operations) {
      if (publicOperations.includes(path)) expect(operation.security, path).toEqual([]);
    }
    for (const { path, operation } of operations) {
      if (publicOperations.includes(path)) continue;
      expect(operation.security ?? doc.security).toEqual([{ apiKey: [] }]);
    }
  });

  it.each(expectedErrors)('%s %s lists each error it may answer', (method, path, statuses) => {
    const responses = doc.paths[path][method].responses;
    const errorStatuses = Object.keys(responses).filter((status) => !/^[123]/.test(status));
    expect(errorStatuses.sort()).toEqual([...statuses].sort());
    for (const status of statuses) {
      const schema = responses[status].content?.['application/json']?.schema;
      expect(schema, `${status}`).toMatchObject({
        type: 'object',
        required: ['code', 'message'],
        properties: { code: { type: 'string', enum: [codeOfStatus[status]] } },
      });
      expect(Object.keys(schema.properties)).toEqual(['code', 'message', 'details']);
      expect(responses[status].description).toContain(codeOfStatus[status]);
    }
  });

  it('names the catalogue messages of an error: a decision refused by its rules', () => {
    const conflict = doc.paths[decisions].post.responses['409'];
    expect(conflict.content['application/json'].schema.properties.message.examples).toEqual(
      expect.arrayContaining([
        'Nothing to withdraw.',
        'Re-consent is not allowed for this version.',
      ]),
    );
    const missing = doc.paths[latest].get.responses['404'];
    expect(missing.content['application/json'].schema.properties.message.examples).toEqual([
      'Template not found.',
    ]);
  });

  it('documents X-Request-Id on every answer, and RateLimit-* on keyed answers past the key check', () => {
    for (const { path, operation } of operations) {
      for (const [status, response] of Object.entries(operation.responses) as [string, any][]) {
        expect(response.headers?.['x-request-id'], `${path} ${status}`).toBeDefined();
        const limited = !publicOperations.includes(path) && status !== '401';
        for (const name of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']) {
          if (limited) {
            expect(response.headers[name]?.schema?.type, `${path} ${status} ${name}`).toBe(
              'integer',
            );
          } else {
            expect(response.headers[name], `${path} ${status} ${name}`).toBeUndefined();
          }
        }
      }
    }
  });

  it('documents Retry-After on 429 and 503, ETag on latest, Idempotent-Replayed on decisions', () => {
    for (const { path, operation } of operations) {
      for (const status of ['429', '503']) {
        const response = operation.responses[status];
        if (!response || path.endsWith('/health')) continue;
        expect(response.headers?.['retry-after']?.schema?.type, `${path} ${status}`).toBe(
          'integer',
        );
      }
    }
    for (const status of ['200', '304']) {
      expect(doc.paths[latest].get.responses[status].headers.etag).toBeDefined();
    }
    for (const status of ['200', '201', '409']) {
      expect(
        doc.paths[decisions].post.responses[status].headers['idempotent-replayed'],
      ).toBeDefined();
    }
    for (const path of [receipt, `${cookieReceipt}/iso-27560`, `${cookieReceipt}/kantara`]) {
      expect(doc.paths[path].get.responses['202'].headers['retry-after'], path).toBeDefined();
    }
  });

  it('describes partners in latest and pending as optional: a version listing none answers without them', () => {
    const versionOf = (schema: any) => schema.properties.data;
    const latestV = versionOf(
      doc.paths[latest].get.responses['200'].content['application/json'].schema,
    );
    const pendingV = versionOf(
      doc.paths[pending].get.responses['200'].content['application/json'].schema,
    ).properties.consent_version;
    for (const v of [latestV, pendingV]) {
      expect(v.required).not.toContain('partners');
      expect(v.properties.partners.type).toBe('array');
      expect(v.properties.partners.items.required).toEqual(['code', 'name']);
    }
  });

  it('types the whole numbers of the query as integers', () => {
    const query = (path: string, name: string) =>
      doc.paths[path].get.parameters.find(
        (p: { in: string; name: string }) => p.in === 'query' && p.name === name,
      ).schema;
    expect(query(history, 'limit')).toMatchObject({ type: 'integer', minimum: 1, maximum: 500 });
    expect(query('/api/v1/log/consistency', 'from')).toMatchObject({ type: 'integer', minimum: 1 });
    expect(query('/api/v1/log/consistency', 'to')).toMatchObject({ type: 'integer', minimum: 1 });
  });

  it('gives the content files their media types: text/html, and application/pdf or text/html', () => {
    const page = doc.paths['/api/content/{file}'].get.responses['200'].content;
    expect(Object.keys(page)).toEqual(['text/html']);
    const uploaded = doc.paths['/api/content/{id}/{file}'].get.responses['200'].content;
    expect(Object.keys(uploaded).sort()).toEqual(['application/pdf', 'text/html']);
  });

  it('describes each webhook event: its signed headers and its body', () => {
    const types = [
      'decision.given',
      'decision.reject',
      'decision.withdraw',
      'version.approved',
      'version.published',
      'version.scheduled',
      'version.archived',
      'customer.erased',
      'cookie_decision.recorded',
      'channel_change.recorded',
      'partner_block.recorded',
      'request.received',
      'request.identity_checked',
      'request.in_progress',
      'request.extended',
      'request.done',
      'request.refused',
      'cookie_scan.flagged',
      'consent.lapsed',
    ];
    expect(Object.keys(doc.webhooks ?? {}).sort()).toEqual([...types].sort());
    for (const type of types) {
      const post = doc.webhooks[type].post;
      const body = post.requestBody.content['application/json'].schema;
      expect(body.required).toEqual(['type', 'timestamp', 'data']);
      expect(body.properties.type.const ?? body.properties.type.enum?.[0]).toBe(type);
      const headers = post.parameters.map((p: { name: string }) => p.name);
      expect(headers).toEqual(
        expect.arrayContaining(['webhook-id', 'webhook-timestamp', 'webhook-signature']),
      );
    }
  });
});
