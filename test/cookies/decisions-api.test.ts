/**
 * `GET /api/v1/cookie-decisions` and `…/{decision_id}`: a tenant's visitors' choices under its
 * API key, newest first and paged by cursor, filtered by visitor, system and time, each with its
 * receipt's URL; another tenant's never shown.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eraseCookieVisitor } from '../../src/cookies/index.js';
import { choose, standardChoice } from '../backoffice/cookies-support.js';
import { expectErrorShape, json, startTestApp, type TestApp } from '../helpers/app.js';
import { type PublishedSystem, seedPublishedSystem } from '../helpers/cookies.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';

const visitors = {
  v1: '00000000-0000-4000-8000-0000000000b1',
  v2: '00000000-0000-4000-8000-0000000000b2',
  v3: '00000000-0000-4000-8000-0000000000b3',
};

describe.each(stores)('the API’s cookie decisions on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let b: SeededTenant;
  let site: PublishedSystem;
  let shop: PublishedSystem;
  /** The choices by name: c1, c2 (v1), c3 (v2) on `site`; c4 (v3) on `shop`. */
  const ids: Record<string, string> = {};
  let otherTenants: string;

  beforeAll(async () => {
    t = await startTestApp(store);
    a = await seedTenant(t.db);
    b = await seedTenant(t.db);
    site = await seedPublishedSystem(t.db, a.tenant.id);
    shop = await seedPublishedSystem(t.db, a.tenant.id, {
      origins: ['https://shop.bank.example'],
    });
    const theirs = await seedPublishedSystem(t.db, b.tenant.id, {
      origins: ['https://www.bank.example'],
    });
    ids.c1 = await choose(t.app, site, 'accept-all', standardChoice(true), {
      visitor: visitors.v1,
    });
    ids.c2 = await choose(t.app, site, 'reject-all', standardChoice(false), {
      visitor: visitors.v1,
    });
    ids.c3 = await choose(t.app, site, 'custom', standardChoice(false, { analytics: true }), {
      visitor: visitors.v2,
    });
    ids.c4 = await choose(t.app, shop, 'accept-all', standardChoice(true), {
      visitor: visitors.v3,
      origin: 'https://shop.bank.example',
    });
    // The same visitor id on another tenant's site is another visitor.
    otherTenants = await choose(t.app, theirs, 'accept-all', standardChoice(true), {
      visitor: visitors.v1,
    });
    const at: Record<string, string> = {
      c1: '2026-03-01T10:00:00.000Z',
      c2: '2026-03-02T10:00:00.000Z',
      c3: '2026-03-03T10:00:00.000Z',
      c4: '2026-03-04T10:00:00.000Z',
    };
    for (const [name, decidedAt] of Object.entries(at)) {
      await t.db
        .updateTable('cookie_decisions')
        .set({ decided_at: decidedAt })
        .where('id', '=', ids[name] as string)
        .execute();
    }
  });
  afterAll(async () => t?.close());

  const get = (url: string, headers = a.headers) => t.app.inject({ method: 'GET', url, headers });

  /** The names of the choices a list answers, in its order. */
  const names = async (query: string) => {
    const response = await get(`/api/v1/cookie-decisions${query}`);
    expect(response.statusCode, response.body).toBe(200);
    const { data } = json(response);
    return data.decisions.map(
      (d: { decision_id: string }) =>
        Object.entries(ids).find(([, id]) => id === d.decision_id)?.[0] ?? d.decision_id,
    );
  };

  it("lists the tenant's choices newest first, each with its visitor, system and receipt URL", async () => {
    const response = await get('/api/v1/cookie-decisions');
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const { data } = json(response);
    expect(data.next_cursor).toBeNull();
    expect(data.decisions.map((d: { decision_id: string }) => d.decision_id)).toEqual([
      ids.c4,
      ids.c3,
      ids.c2,
      ids.c1,
    ]);
    expect(data.decisions[1]).toEqual({
      decision_id: ids.c3,
      visitor_id: visitors.v2,
      system: site.scope,
      configuration_id: site.configurationId,
      configuration_version: 1,
      method: 'custom',
      categories: standardChoice(false, { analytics: true }),
      locale: 'en',
      origin: 'https://www.bank.example',
      decided_at: '2026-03-03T10:00:00.000Z',
      receipt_url: `https://consent.test/api/v1/cookie-decisions/${ids.c3}/receipt`,
    });
    expect(JSON.stringify(data)).not.toContain(otherTenants);
  });

  it('the receipt URL of an item answers its receipt with the same key', async () => {
    const { data } = json(await get(`/api/v1/cookie-decisions?visitor_id=${visitors.v2}`));
    const url = new URL(data.decisions[0].receipt_url);
    const receipt = await get(`${url.pathname}?wait=true`);
    expect(receipt.statusCode).toBe(200);
    expect(json(receipt).data.cookie_decision.decision_id).toBe(ids.c3);
  });

  it.each([
    ['by visitor', () => `?visitor_id=${visitors.v1}`, ['c2', 'c1']],
    [
      'by visitor, typed in upper case',
      () => `?visitor_id=${visitors.v1.toUpperCase()}`,
      ['c2', 'c1'],
    ],
    ['by system', () => `?system=${shop.scope}`, ['c4']],
    [
      'from a moment on, that moment included',
      () => '?from=2026-03-02T10:00:00Z',
      ['c4', 'c3', 'c2'],
    ],
    ['before a moment, that moment left out', () => '?to=2026-03-03T10:00:00.000Z', ['c2', 'c1']],
    [
      'by a range read in its time zone',
      () => '?from=2026-03-02T17:00:00%2B07:00&to=2026-03-03T17:00:01%2B07:00',
      ['c3', 'c2'],
    ],
    [
      'by several filters at once',
      () => `?system=${site.scope}&visitor_id=${visitors.v1}&from=2026-03-02T00:00:00Z`,
      ['c2'],
    ],
    ['by a visitor never seen: none', () => '?visitor_id=00000000-0000-4000-8000-0000000000ff', []],
  ])('filters %s', async (_name, query, expected) => {
    expect(await names(query())).toEqual(expected);
  });

  it('pages by cursor: each choice once, in order, until next_cursor is null', async () => {
    const first = json(await get('/api/v1/cookie-decisions?limit=3')).data;
    expect(first.decisions).toHaveLength(3);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = json(
      await get(`/api/v1/cookie-decisions?limit=3&cursor=${first.next_cursor}`),
    ).data;
    expect(second.next_cursor).toBeNull();
    expect(
      [...first.decisions, ...second.decisions].map((d: { decision_id: string }) => d.decision_id),
    ).toEqual([ids.c4, ids.c3, ids.c2, ids.c1]);
  });

  it.each([
    ['a visitor id that is no UUID', '?visitor_id=someone', 'querystring.visitor_id'],
    ['a time without a zone', '?from=2026-03-01T00:00:00', 'querystring.from'],
    ['to before from', '?from=2026-03-02T00:00:00Z&to=2026-03-01T00:00:00Z', 'querystring.to'],
    ['a cursor the service did not make', '?cursor=abc', 'querystring.cursor'],
    ['a limit of 0', '?limit=0', 'querystring.limit'],
    ['an unknown parameter', '?method=gpc', 'querystring'],
  ])('refuses %s: 400 1001 naming it', async (_name, query, field) => {
    const response = await get(`/api/v1/cookie-decisions${query}`);
    expect(response.statusCode).toBe(400);
    expect(expectErrorShape(response).code).toBe('1001');
    expect(JSON.stringify(json(response).details)).toContain(field);
  });

  it("answers 404 1004 for a system that is not the tenant's, and 401 1002 without a key", async () => {
    const unknown = await get('/api/v1/cookie-decisions?system=cs_00000000000000000000');
    expect(unknown.statusCode).toBe(404);
    expect(expectErrorShape(unknown).code).toBe('1004');
    const keyless = await t.app.inject({ method: 'GET', url: '/api/v1/cookie-decisions' });
    expect(keyless.statusCode).toBe(401);
  });

  it('answers one decision by its id, as the list gives it; another tenant’s is 404 1004', async () => {
    const { data: listed } = json(await get(`/api/v1/cookie-decisions?system=${shop.scope}`));
    const one = await get(`/api/v1/cookie-decisions/${ids.c4?.toUpperCase()}`);
    expect(one.statusCode).toBe(200);
    expect(json(one).data).toEqual(listed.decisions[0]);
    const theirs = await get(`/api/v1/cookie-decisions/${otherTenants}`);
    expect(theirs.statusCode).toBe(404);
    expect(expectErrorShape(theirs)).toEqual({
      code: '1004',
      message: 'Cookie decision not found.',
    });
    expect((await get('/api/v1/cookie-decisions/not-a-uuid')).statusCode).toBe(400);
    expect((await get(`/api/v1/cookie-decisions/${otherTenants}`, b.headers)).statusCode).toBe(200);
  });

  it('an erased visitor’s choices stay listed without their id, and the id finds none', async () => {
    const visitor = '00000000-0000-4000-8000-0000000000e1';
    const id = await choose(t.app, site, 'accept-all', standardChoice(true), { visitor });
    await eraseCookieVisitor(t.db, t.vault, t.registry, a.tenant.id, visitor, {
      actorKind: 'operator',
      actor: 'command line',
      ip: 'local',
      userAgent: null,
    });
    expect(await names(`?visitor_id=${visitor}`)).toEqual([]);
    const one = json(await get(`/api/v1/cookie-decisions/${id}`)).data;
    expect(one.visitor_id).toBeNull();
  });
});
