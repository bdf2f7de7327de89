/**
 * Visitors' cookie decisions in the back-office: the list's filters (system, configuration,
 * category granted or denied, method, days in the tenant's zone, visitor id, decision id), its
 * pages, each row's receipt, the CSV's columns and rows, the download's audit entry, the
 * dashboard's rates, and the setting of how a choice keeps the visitor's address. Tenant A is in Asia/Bangkok (UTC+7, no daylight saving).
 */
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getTenantSettings, setTenantSettings } from '../../src/tenants/service.js';
import type { TestApp } from '../helpers/app.js';
import { type PublishedSystem, seedPublishedSystem } from '../helpers/cookies.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { choose, member, standardChoice } from './cookies-support.js';
import { type PageClient, signedIn, startBackofficeApp, textOf } from './support.js';

const header = [
  'decision_id',
  'system',
  'configuration_id',
  'configuration_version',
  'method',
  'category_necessary',
  'category_analytics',
  'category_marketing',
  'category_functional',
  'category_personalization',
  'locale',
  'origin',
  'visitor_id',
  'ip',
  'user_agent',
  'decided_at',
  'decided_on',
  'time_zone',
  'region',
  'variant',
];

describe.each(stores)('cookie decisions in the back-office on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let admin: PageClient;
  let site: PublishedSystem;
  let shop: PublishedSystem;
  /** The choices by name: v1 to v4 on `site`, v5 on `shop`. */
  const ids: Record<string, string> = {};
  const visitors = {
    v1: '00000000-0000-4000-8000-000000000001',
    v2: '00000000-0000-4000-8000-000000000002',
    v3: '00000000-0000-4000-8000-000000000003',
    v4: '00000000-0000-4000-8000-000000000004',
    v5: '00000000-0000-4000-8000-000000000005',
  };

  beforeAll(async () => {
    t = await startBackofficeApp(store);
    a = await seedTenant(t.db);
    const settings = await getTenantSettings(t.db, a.tenant.id);
    await setTenantSettings(t.db, a.tenant.id, { ...settings, timeZone: 'Asia/Bangkok' });
    admin = await signedIn(t.app, a.tenant.email);
    site = await seedPublishedSystem(t.db, a.tenant.id);
    shop = await seedPublishedSystem(t.db, a.tenant.id, {
      origins: ['https://shop.bank.example'],
      categories: ['analytics', 'loyalty'],
    });
    ids.v1 = await choose(t.app, site, 'accept-all', standardChoice(true), {
      visitor: visitors.v1,
    });
    ids.v2 = await choose(t.app, site, 'reject-all', standardChoice(false), {
      visitor: visitors.v2,
    });
    ids.v3 = await choose(t.app, site, 'custom', standardChoice(false, { analytics: true }), {
      visitor: visitors.v3,
    });
    ids.v4 = await choose(t.app, site, 'gpc', standardChoice(false, { functional: true }), {
      visitor: visitors.v4,
    });
    ids.v5 = await choose(
      t.app,
      shop,
      'custom',
      { necessary: true, analytics: false, loyalty: true },
      { visitor: visitors.v5, origin: 'https://shop.bank.example' },
    );
    // The site's choices are placed on fixed instants around Bangkok's midnight (17:00 UTC), for
    // the day rule; the shop's stays where it was recorded, within the dashboard's 30 days.
    const at: Record<string, string> = {
      v1: '2026-03-01T16:59:59.000Z',
      v2: '2026-03-01T17:00:00.000Z',
      v3: '2026-03-03T03:00:00.000Z',
      v4: '2026-03-03T04:00:00.000Z',
    };
    for (const [name, decidedAt] of Object.entries(at)) {
      await t.db
        .updateTable('cookie_decisions')
        .set({ decided_at: decidedAt })
        .where('id', '=', ids[name] as string)
        .execute();
    }
  });
  afterAll(() => t?.close());

  /** The choices a list page shows, in its order, by their names (v1…v5). */
  const listed = async (query: string, page = admin) => {
    const response = await page.get(`/backoffice/cookies/decisions${query}`);
    expect(response.statusCode, textOf(response.body)).toBe(200);
    const at = [...response.body.matchAll(/<time datetime="([^"]+)"/g)].map((m) => m[1]);
    const rows = await t.db
      .selectFrom('cookie_decisions')
      .select(['id', 'decided_at'])
      .where('tenant_id', '=', a.tenant.id)
      .execute();
    return at.map((instant) => {
      const row = rows.find((r) => r.decided_at === instant);
      return row ? (Object.entries(ids).find(([, id]) => id === row.id)?.[0] ?? '?') : '?';
    });
  };

  it('lists every choice newest first, with what was chosen and no visitor id or address', async () => {
    expect(await listed('')).toEqual(['v5', 'v4', 'v3', 'v2', 'v1']);
    const body = (await admin.get('/backoffice/cookies/decisions')).body;
    expect(body).not.toContain(visitors.v1);
    expect(body).not.toContain('203.0.113');
    expect(textOf(body)).toContain(
      'Custom necessary: granted analytics: granted marketing: denied functional: denied personalization: denied en https://www.bank.example',
    );
  });

  it.each([
    ['by system', () => `?system=${shop.scope}`, ['v5']],
    ['by configuration', () => `?configuration=${site.configurationId}`, ['v4', 'v3', 'v2', 'v1']],
    ['by method', () => '?method=custom', ['v5', 'v3']],
    ['by a category granted', () => '?category=analytics&granted=granted', ['v3', 'v1']],
    ['by a category denied', () => '?category=analytics&granted=denied', ['v5', 'v4', 'v2']],
    ['by a category either way', () => '?category=loyalty', ['v5']],
    ["by the tenant's own category granted", () => '?category=loyalty&granted=granted', ['v5']],
    ['by a day in Bangkok: its last second', () => '?from=2026-03-01&to=2026-03-01', ['v1']],
    ['by a day in Bangkok: its first second', () => '?from=2026-03-02&to=2026-03-02', ['v2']],
    ['by days, the last included', () => '?from=2026-03-02&to=2026-03-03', ['v4', 'v3', 'v2']],
    ['by several filters at once', () => `?system=${site.scope}&method=gpc&to=2026-03-03`, ['v4']],
    ['by visitor id', () => `?visitor=${visitors.v3}`, ['v3']],
    ['by visitor id typed in upper case', () => `?visitor=${visitors.v5.toUpperCase()}`, ['v5']],
    ['by a visitor id never seen: none', () => '?visitor=00000000-0000-4000-8000-0000000000ff', []],
    ['by decision id', () => `?decision=${ids.v2}`, ['v2']],
    ['by decision id typed in upper case', () => `?decision=${ids.v4?.toUpperCase()}`, ['v4']],
    ['by decision id and another filter it fails', () => `?decision=${ids.v2}&method=gpc`, []],
  ])('filters %s', async (_name, query, expected) => {
    expect(await listed(query())).toEqual(expected);
  });

  it.each([
    ['?from=2026-02-30', 'A day of the calendar.'],
    ['?from=2026-03-03&to=2026-03-01', 'The last day comes on or after the first.'],
    ['?method=maybe', 'accept-all, reject-all, custom or gpc, or nothing.'],
    ['?granted=granted', 'Choose a category too.'],
    ['?category=ads', 'A category of the list, or nothing.'],
    ['?system=cs_00000000000000000000', 'There is no such system.'],
    ['?configuration=nope', 'There is no such configuration.'],
    ['?visitor=someone', 'A visitor id is the UUID the banner keeps'],
    ['?decision=12', 'A decision id is the UUID its choice was answered with'],
  ])('a filter %s that is none answers the page with the reason (400)', async (query, reason) => {
    for (const path of ['/backoffice/cookies/decisions', '/backoffice/cookies/decisions.csv']) {
      const response = await admin.get(`${path}${query}`);
      expect(response.statusCode).toBe(400);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(textOf(response.body)).toContain(reason);
    }
  });

  it("downloads a system's choices as CSV, oldest first, one column per category, the visitor's data and the day in the tenant's zone", async () => {
    const response = await admin.get(`/backoffice/cookies/decisions.csv?system=${site.scope}`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.body.split('\r\n')[0]).toBe(header.join(','));
    const rows = parse(response.body, { columns: true }) as Array<Record<string, string>>;
    expect(rows.map((r) => r.decision_id)).toEqual([ids.v1, ids.v2, ids.v3, ids.v4]);
    expect(rows[0]).toEqual({
      decision_id: ids.v1,
      system: site.scope,
      configuration_id: site.configurationId,
      configuration_version: '1',
      method: 'accept-all',
      category_necessary: 'granted',
      category_analytics: 'granted',
      category_marketing: 'granted',
      category_functional: 'granted',
      category_personalization: 'granted',
      locale: 'en',
      origin: 'https://www.bank.example',
      visitor_id: visitors.v1,
      ip: '203.0.113.0',
      user_agent: 'Browser/1.0',
      decided_at: '2026-03-01T16:59:59.000Z',
      decided_on: '2026-03-01',
      time_zone: 'Asia/Bangkok',
      // No source of regions is configured here.
      region: '',
      variant: '',
    });
    expect(rows[1]?.decided_on).toBe('2026-03-02');
    expect([rows[3]?.method, rows[3]?.category_functional, rows[3]?.category_marketing]).toEqual([
      'gpc',
      'granted',
      'denied',
    ]);
    const entries = await t.db
      .selectFrom('audit_log')
      .select(['actor', 'target', 'details'])
      .where('tenant_id', '=', a.tenant.id)
      .where('action', '=', 'export.cookie_decisions')
      .execute();
    expect(entries.map((e) => [e.actor, e.target, JSON.parse(e.details ?? '{}')])).toContainEqual([
      a.tenant.email,
      site.scope,
      { system: site.scope, time_zone: 'Asia/Bangkok' },
    ]);
  });

  it("a download of one visitor's choices has theirs alone, and the audit log keeps their subject, not their id", async () => {
    const response = await admin.get(`/backoffice/cookies/decisions.csv?visitor=${visitors.v1}`);
    expect(response.statusCode).toBe(200);
    const rows = parse(response.body, { columns: true }) as Array<Record<string, string>>;
    expect(rows.map((r) => [r.decision_id, r.visitor_id])).toEqual([[ids.v1, visitors.v1]]);
    const entries = await t.db
      .selectFrom('audit_log')
      .select('details')
      .where('tenant_id', '=', a.tenant.id)
      .where('action', '=', 'export.cookie_decisions')
      .execute();
    const subject = await t.db
      .selectFrom('cookie_decisions')
      .select('subject_id')
      .where('id', '=', ids.v1 as string)
      .executeTakeFirstOrThrow();
    const details = entries.map((e) => JSON.parse(e.details ?? '{}'));
    expect(details).toContainEqual({ visitor: subject.subject_id, time_zone: 'Asia/Bangkok' });
    expect(JSON.stringify(details)).not.toContain(visitors.v1);
  });

  it("each row links to its receipt, which downloads the same receipt as the API's", async () => {
    const page = await admin.get(`/backoffice/cookies/decisions?decision=${ids.v3}`);
    const href = `/backoffice/cookies/decisions/${ids.v3}/receipt`;
    expect(page.body).toContain(`href="${href}" download`);
    // A choice's leaf joins the log within about a second: until then the page says so (202).
    await expect.poll(async () => (await admin.get(href)).statusCode).toBe(200);
    const response = await admin.get(href);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.headers['content-disposition']).toBe(
      `attachment; filename="cookie-receipt-${ids.v3}.json"`,
    );
    const api = await t.app.inject({
      method: 'GET',
      url: `/api/v1/cookie-decisions/${ids.v3}/receipt`,
      headers: a.headers,
    });
    expect(JSON.parse(response.body)).toEqual(JSON.parse(api.body));
    expect(JSON.parse(response.body).data.opening.visitor_id).toBe(visitors.v3);
    const unknown = await admin.get(
      '/backoffice/cookies/decisions/00000000-0000-4000-8000-0000000000ff/receipt',
    );
    expect(unknown.statusCode).toBe(404);
  });

  it("every system's download has the union of their categories, empty where a choice's banner had none", async () => {
    const response = await admin.get('/backoffice/cookies/decisions.csv?method=custom');
    const [first] = response.body.split('\r\n');
    expect(first).toBe([...header.slice(0, 10), 'category_loyalty', ...header.slice(10)].join(','));
    const rows = parse(response.body, { columns: true }) as Array<Record<string, string>>;
    expect(rows.map((r) => r.decision_id)).toEqual([ids.v3, ids.v5]);
    expect(rows[1]).toMatchObject({
      system: shop.scope,
      category_necessary: 'granted',
      category_analytics: 'denied',
      category_marketing: '',
      category_functional: '',
      category_personalization: '',
      category_loyalty: 'granted',
      origin: 'https://shop.bank.example',
    });
  });

  it('an editor sees the list but no download, and the CSV route refuses them; an auditor may download', async () => {
    const editor = await member(t.app, t.db, a.tenant, 'editor', ['editor']);
    const page = await editor.page.get('/backoffice/cookies/decisions');
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('/backoffice/cookies/decisions.csv');
    expect(page.body).not.toContain('/receipt');
    expect((await editor.page.get('/backoffice/cookies/decisions.csv')).statusCode).toBe(403);
    expect(
      (await editor.page.get(`/backoffice/cookies/decisions/${ids.v1}/receipt`)).statusCode,
    ).toBe(403);
    const auditor = await member(t.app, t.db, a.tenant, 'auditor', ['auditor']);
    expect((await auditor.page.get('/backoffice/cookies/decisions')).body).toContain(
      'href="/backoffice/cookies/decisions.csv"',
    );
    expect((await auditor.page.get('/backoffice/cookies/decisions.csv')).statusCode).toBe(200);
    const service = await member(t.app, t.db, a.tenant, 'service', ['customer_service']);
    expect((await service.page.get('/backoffice/cookies/decisions')).statusCode).toBe(403);
  });

  it("the dashboard gives each system's share of each way of choosing over the last 30 days", async () => {
    await choose(
      t.app,
      shop,
      'accept-all',
      { necessary: true, analytics: true, loyalty: true },
      {
        origin: 'https://shop.bank.example',
      },
    );
    await choose(
      t.app,
      shop,
      'accept-all',
      { necessary: true, analytics: true, loyalty: true },
      {
        origin: 'https://shop.bank.example',
      },
    );
    await choose(
      t.app,
      shop,
      'gpc',
      { necessary: true, analytics: true, loyalty: false },
      {
        origin: 'https://shop.bank.example',
      },
    );
    const text = textOf((await admin.get('/backoffice/dashboard')).body);
    expect(text).toContain(
      'Cookie choices, last 30 days System Choices Accept all Reject all Custom Global Privacy Control',
    );
    // The shop: 2 accept-all, 1 custom, 1 gpc; the site's choices are all older than 30 days.
    const rows = text.slice(
      text.indexOf('Global Privacy Control') + 'Global Privacy Control'.length,
    );
    const systems = await t.db
      .selectFrom('cookie_systems')
      .select(['scope', 'name'])
      .where('tenant_id', '=', a.tenant.id)
      .execute();
    const nameOf = (scope: string) => systems.find((s) => s.scope === scope)?.name;
    expect(rows).toContain(`${nameOf(shop.scope)} 4 choices 50% (2) 0% (0) 25% (1) 25% (1)`);
    expect(rows).toContain(`${nameOf(site.scope)} 0 choices — (0) — (0) — (0) — (0)`);
    // A role that sees no cookies sees no rates.
    const service = await signedIn(t.app, `service-${a.tenant.alias}@example.test`);
    expect(textOf((await service.get('/backoffice/dashboard')).body)).not.toContain(
      'Cookie choices',
    );
  });

  it('pages of 50, newest first: Older leads to the rest, each choice once', async () => {
    for (let i = 0; i < 51; i += 1) {
      await choose(
        t.app,
        shop,
        'reject-all',
        { necessary: true, analytics: false, loyalty: false },
        {
          origin: 'https://shop.bank.example',
        },
      );
    }
    const first = await admin.get(
      `/backoffice/cookies/decisions?system=${shop.scope}&method=reject-all`,
    );
    expect([...first.body.matchAll(/<time datetime=/g)]).toHaveLength(50);
    const older = /href="(\/backoffice\/cookies\/decisions\?[^"]*before=[^"]+)">Older/.exec(
      first.body,
    )?.[1];
    expect(older).toBeDefined();
    const second = await admin.get((older ?? '').replaceAll('&amp;', '&'));
    expect([...second.body.matchAll(/<time datetime=/g)]).toHaveLength(1);
    expect(second.body).not.toContain('>Older<');
  });

  it("the setting of how a choice keeps the visitor's address is saved, audited, and used by the next choice", async () => {
    const settings = await admin.get('/backoffice/settings');
    expect(textOf(settings.body)).toContain("How a cookie choice keeps the visitor's address");
    const refused = await admin.post('/backoffice/settings', {
      time_zone: 'Asia/Bangkok',
      four_eyes: 'true',
      cookie_address: 'everything',
    });
    expect(refused.statusCode).toBe(400);
    expect(textOf(refused.body)).toContain('Choose full, truncated or keyed hash.');
    await admin.get('/backoffice/settings');
    const saved = await admin.post('/backoffice/settings', {
      time_zone: 'Asia/Bangkok',
      four_eyes: 'true',
      cookie_address: 'full',
    });
    expect(saved.headers.location).toBe('/backoffice/settings?notice=saved');
    expect((await getTenantSettings(t.db, a.tenant.id)).cookieAddress).toBe('full');
    // A form without the field (sent from a page older than the setting) leaves it as it is.
    await admin.get('/backoffice/settings');
    await admin.post('/backoffice/settings', { time_zone: 'Asia/Bangkok', four_eyes: 'true' });
    expect((await getTenantSettings(t.db, a.tenant.id)).cookieAddress).toBe('full');
    const entries = await t.db
      .selectFrom('audit_log')
      .select('details')
      .where('tenant_id', '=', a.tenant.id)
      .where('action', '=', 'settings.cookie_address_changed')
      .execute();
    expect(entries.map((e) => JSON.parse(e.details ?? '{}'))).toEqual([
      { from: 'truncated', to: 'full' },
    ]);
    // A system not read since (the public side keeps what it read for a second).
    const fresh = await seedPublishedSystem(t.db, a.tenant.id, {
      origins: ['https://new.bank.example'],
    });
    const visitor = '00000000-0000-4000-8000-0000000000aa';
    await choose(t.app, fresh, 'accept-all', standardChoice(true), {
      visitor,
      origin: 'https://new.bank.example',
    });
    const csv = await admin.get(`/backoffice/cookies/decisions.csv?system=${fresh.scope}`);
    const rows = parse(csv.body, { columns: true }) as Array<Record<string, string>>;
    expect(rows.map((r) => [r.visitor_id, r.ip])).toEqual([[visitor, '203.0.113.77']]);
  });
});
