/**
 * `POST /cookies/v1/{scope}/decisions`: a visitor's choice from one of the system's origins is
 * recorded once (a retry of its event id answers the first record), sealed under the visitor's
 * subject, and refused with the catalogue's errors for every kind of bad input, nothing stored.
 */
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cookieDecisions, unpublishConfiguration } from '../../src/cookies/index.js';
import { expectErrorShape, json, startTestApp, type TestApp } from '../helpers/app.js';
import { cliEditor, type PublishedSystem, seedPublishedSystem } from '../helpers/cookies.js';
import { publish, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';

const origin = 'https://www.bank.example';
const uuidShape = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe.each(stores)('a visitor’s cookie choice on $name', (store) => {
  let t: TestApp;
  let tenantId: string;
  let keyHeaders: Record<string, string>;
  let site: PublishedSystem;

  beforeAll(async () => {
    t = await startTestApp(store);
    const seeded = await seedTenant(t.db);
    tenantId = seeded.tenant.id;
    keyHeaders = seeded.headers;
    site = await seedPublishedSystem(t.db, tenantId);
  });
  afterAll(async () => t.close());

  const choice = (overrides: Record<string, unknown> = {}) => ({
    event_id: randomUUID(),
    visitor_id: randomUUID(),
    configuration_id: site.configurationId,
    configuration_version: site.version,
    method: 'accept-all',
    categories: {
      necessary: true,
      analytics: true,
      marketing: true,
      functional: true,
      personalization: true,
    },
    locale: 'en',
    ...overrides,
  });

  const send = (
    body: unknown,
    headers: Record<string, string> = {},
    scope = site.scope,
  ): Promise<LightMyRequestResponse> =>
    t.app.inject({
      method: 'POST',
      url: `/cookies/v1/${scope}/decisions`,
      headers: { origin, 'content-type': 'text/plain;charset=UTF-8', ...headers },
      remoteAddress: '203.0.113.77',
      payload: typeof body === 'string' ? body : JSON.stringify(body),
    });

  const stored = async () => {
    const all = [];
    for await (const row of cookieDecisions(t.db, t.vault, tenantId, { scope: site.scope })) {
      all.push(row);
    }
    return all;
  };

  it('records a choice sent as text/plain, answers 201 with its id, and lets the page read it', async () => {
    const body = choice({ locale: 'EN' });
    const response = await send(body, { 'user-agent': 'Browser/1.0' });
    expect(response.statusCode).toBe(201);
    expect(response.headers['access-control-allow-origin']).toBe(origin);
    const { data } = json(response);
    expect(data.decision_id).toMatch(uuidShape);
    const row = (await stored()).find((r) => r.decision_id === data.decision_id);
    expect(row).toEqual({
      decision_id: data.decision_id,
      system: site.scope,
      configuration_id: site.configurationId,
      configuration_version: 1,
      method: 'accept-all',
      categories: body.categories,
      locale: 'en',
      origin,
      visitor_id: body.visitor_id,
      // The tenant's default keeps the address's network only.
      ip: '203.0.113.0',
      user_agent: 'Browser/1.0',
      decided_at: data.decided_at,
    });
  });

  it('answers a retry of the same event id with its first record (200), storing nothing more', async () => {
    const body = choice();
    const first = await send(body);
    const again = await send(body);
    expect([first.statusCode, again.statusCode]).toEqual([201, 200]);
    expect(json(again).data).toEqual(json(first).data);
    const rows = (await stored()).filter((r) => r.visitor_id === body.visitor_id);
    expect(rows).toHaveLength(1);
  });

  it('refuses the same event id with another choice: 409 1005', async () => {
    const body = choice();
    expect((await send(body)).statusCode).toBe(201);
    const other = await send({
      ...body,
      method: 'reject-all',
      categories: {
        necessary: true,
        analytics: false,
        marketing: false,
        functional: false,
        personalization: false,
      },
    });
    expect(other.statusCode).toBe(409);
    expect(expectErrorShape(other)).toEqual({
      code: '1005',
      message: 'This event id was recorded with another choice.',
    });
  });

  it('answers choices sent at once as one at a time would: one record an event, one visitor a subject', async () => {
    const retried = choice();
    const visitor = randomUUID();
    const twice = [choice({ visitor_id: visitor }), choice({ visitor_id: visitor })];
    const contested = choice();
    const denied = {
      ...contested,
      method: 'reject-all',
      categories: {
        necessary: true,
        analytics: false,
        marketing: false,
        functional: false,
        personalization: false,
      },
    };
    const answers = await Promise.all(
      [retried, retried, ...twice, contested, denied].map((body) => send(body)),
    );
    const [r1, r2, v1, v2, c1, c2] = answers.map((a) => a.statusCode);
    expect([r1, r2].sort()).toEqual([200, 201]);
    expect(json(answers[1] as LightMyRequestResponse).data).toEqual(
      json(answers[0] as LightMyRequestResponse).data,
    );
    expect([v1, v2]).toEqual([201, 201]);
    expect([c1, c2].sort()).toEqual([201, 409]);
    const rows = await stored();
    expect(rows.filter((r) => r.visitor_id === retried.visitor_id)).toHaveLength(1);
    expect(rows.filter((r) => r.visitor_id === visitor)).toHaveLength(2);
    expect(rows.filter((r) => r.visitor_id === contested.visitor_id)).toHaveLength(1);
    const subjects = await t.db
      .selectFrom('cookie_decisions')
      .select('subject_id')
      .distinct()
      .where('tenant_id', '=', tenantId)
      .where(
        'event_id',
        'in',
        twice.map((c) => c.event_id),
      )
      .execute();
    expect(subjects).toHaveLength(1);
  });

  it('answers each of choices and decisions sent together with its own record, whatever the order they reach the writer in', async () => {
    const code = await seedTemplate(t.db, tenantId);
    const versionId = (await publish(t.db, tenantId, code)).consent_version_id;
    const decide = (customer: string) =>
      t.app.inject({
        method: 'POST',
        url: `/api/v1/customers/${customer}/consents/decisions`,
        headers: keyHeaders,
        payload: { consent_version_id: versionId, decision: 'given' },
      });
    const bodies = Array.from({ length: 4 }, () => choice());
    const customers = Array.from({ length: 4 }, (_, i) => `mixed-${randomUUID()}-${i}`);
    // Interleaved: decision, choice, decision, choice…
    const sent = bodies.flatMap((body, i) => [
      decide(customers[i] as string),
      send(body).then((r) => ({ r, visitor: body.visitor_id })),
    ]);
    const answers = await Promise.all(sent);
    const rows = await stored();
    for (const [i, answer] of answers.entries()) {
      if (i % 2 === 0) {
        const r = answer as LightMyRequestResponse;
        expect(r.statusCode).toBe(201);
        expect(json(r).data).toMatchObject({ consent_version_id: versionId, decision: 'given' });
      } else {
        const { r, visitor } = answer as { r: LightMyRequestResponse; visitor: string };
        expect(r.statusCode).toBe(201);
        const row = rows.find((x) => x.decision_id === json(r).data.decision_id);
        expect(row?.visitor_id).toBe(visitor);
      }
    }
  });

  it('takes application/json too, after a preflight that names the origin', async () => {
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: `/cookies/v1/${site.scope}/decisions`,
      headers: { origin, 'access-control-request-method': 'POST' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(origin);
    expect(preflight.headers['access-control-allow-methods']).toBe('POST');
    expect(preflight.headers['access-control-allow-headers']).toBe('content-type');
    const response = await send(choice(), { 'content-type': 'application/json' });
    expect(response.statusCode).toBe(201);
  });

  it.each([
    ['another origin', { origin: 'https://evil.example' }],
    ['the origin with a path', { origin: `${origin}/` }],
    ['no origin', { origin: '' }],
  ])('refuses %s: 403 1003, nothing stored, nothing the page may read', async (_name, headers) => {
    const before = (await stored()).length;
    const response = await send(choice(), headers);
    expect(response.statusCode).toBe(403);
    expect(expectErrorShape(response)).toEqual({ code: '1003', message: 'Origin not allowed.' });
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
    expect((await stored()).length).toBe(before);
  });

  it('refuses a preflight from another origin: 403 1003', async () => {
    const response = await t.app.inject({
      method: 'OPTIONS',
      url: `/cookies/v1/${site.scope}/decisions`,
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(response.statusCode).toBe(403);
  });

  it('answers 404 1004 for a scope no system has', async () => {
    const response = await send(choice(), {}, 'cs_00000000000000000000');
    expect(response.statusCode).toBe(404);
    expect(expectErrorShape(response).code).toBe('1004');
  });

  const all = (value: boolean) => ({
    necessary: true,
    analytics: value,
    marketing: value,
    functional: value,
    personalization: value,
  });

  it.each<[string, () => unknown, string]>([
    ['an event id that is not a UUID', () => choice({ event_id: 'e-1' }), 'event_id'],
    ['a visitor id that is not a UUID', () => choice({ visitor_id: '../1' }), 'visitor_id'],
    ['an unknown method', () => choice({ method: 'maybe' }), 'method'],
    ['a field the body does not have', () => choice({ extra: 1 }), 'extra'],
    [
      'a category the configuration does not have',
      () => choice({ categories: { ...all(true), ads: true } }),
      'categories',
    ],
    [
      'a category left out',
      () => choice({ categories: { necessary: true, analytics: true } }),
      'categories',
    ],
    [
      'a required category denied',
      () => choice({ method: 'custom', categories: { ...all(false), necessary: false } }),
      'categories.necessary',
    ],
    [
      'accept-all with a category denied',
      () => choice({ categories: { ...all(true), analytics: false } }),
      'method',
    ],
    [
      'reject-all with a category granted',
      () => choice({ method: 'reject-all', categories: { ...all(false), analytics: true } }),
      'method',
    ],
    [
      'gpc with marketing granted',
      () => choice({ method: 'gpc', categories: { ...all(false), marketing: true } }),
      'method',
    ],
    ['a locale the configuration has not', () => choice({ locale: 'fr' }), 'locale'],
    ['a locale that is no language tag', () => choice({ locale: 'x y' }), 'locale'],
    [
      'a configuration the system never published',
      () => choice({ configuration_id: '00000000-0000-7000-8000-000000000000' }),
      'configuration_id',
    ],
    [
      'another version of the configuration',
      () => choice({ configuration_version: 2 }),
      'configuration_version',
    ],
  ])('refuses %s: 400 1001 naming the field, nothing stored', async (_name, body, field) => {
    const before = (await stored()).length;
    const response = await send(body());
    expect(response.statusCode).toBe(400);
    const error = json(response);
    expect(error.code).toBe('1001');
    expect(error.details.map((d: { field: string }) => d.field)).toContain(`body.${field}`);
    expect(response.headers['access-control-allow-origin']).toBe(origin);
    expect((await stored()).length).toBe(before);
  });

  it('refuses a body that is not JSON: 400 1001, nothing stored', async () => {
    const before = (await stored()).length;
    const response = await send('{"event_id":');
    expect([response.statusCode, expectErrorShape(response).code]).toEqual([400, '1001']);
    expect((await stored()).length).toBe(before);
  });

  it('refuses a body over 4 KiB (413 1006) and a media type that is not JSON or text (415 1007)', async () => {
    const big = await send(choice({ locale: 'x'.repeat(5000) }));
    expect([big.statusCode, expectErrorShape(big).code]).toEqual([413, '1006']);
    const png = await send(choice(), { 'content-type': 'image/png' });
    expect([png.statusCode, expectErrorShape(png).code]).toEqual([415, '1007']);
  });

  it('still records a choice on a configuration taken off the site since the page loaded', async () => {
    const other = await seedPublishedSystem(t.db, tenantId);
    const by = cliEditor(tenantId);
    await t.db
      .transaction()
      .execute((trx) => unpublishConfiguration(trx, tenantId, other.configurationId, by));
    const response = await send(
      choice({ configuration_id: other.configurationId }),
      {},
      other.scope,
    );
    expect(response.statusCode).toBe(201);
  });
});

describe.each(stores)('the rate limit of the public cookie endpoints on $name', (store) => {
  let t: TestApp;
  let site: PublishedSystem;

  beforeAll(async () => {
    t = await startTestApp(store, { COOKIE_RATE_LIMIT_PER_MINUTE: '2' });
    const tenantId = (await seedTenant(t.db)).tenant.id;
    site = await seedPublishedSystem(t.db, tenantId);
  });
  afterAll(async () => t.close());

  it('counts per address and system: the third request of an address in a minute is 429 1008', async () => {
    const post = (ip: string) =>
      t.app.inject({
        method: 'POST',
        url: `/cookies/v1/${site.scope}/decisions`,
        headers: { origin, 'content-type': 'text/plain' },
        remoteAddress: ip,
        payload: '{}',
      });
    const answers = [await post('198.51.100.1'), await post('198.51.100.1')];
    expect(answers.map((r) => r.statusCode)).toEqual([400, 400]);
    const third = await post('198.51.100.1');
    expect(third.statusCode).toBe(429);
    expect(expectErrorShape(third).code).toBe('1008');
    expect(third.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect((await post('198.51.100.2')).statusCode).toBe(400);
  });

  it('never limits the banner script: one address past the limit still gets it, and its choices still 429', async () => {
    const ip = '198.51.100.7';
    const script = () =>
      t.app.inject({
        method: 'GET',
        url: `/cookies/v1/${site.scope}/banner.js`,
        remoteAddress: ip,
      });
    const statuses = [];
    for (let n = 0; n < 5; n += 1) statuses.push((await script()).statusCode);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    const post = () =>
      t.app.inject({
        method: 'POST',
        url: `/cookies/v1/${site.scope}/decisions`,
        headers: { origin, 'content-type': 'text/plain' },
        remoteAddress: ip,
        payload: '{}',
      });
    expect([
      (await post()).statusCode,
      (await post()).statusCode,
      (await post()).statusCode,
    ]).toEqual([400, 400, 429]);
  });
});
