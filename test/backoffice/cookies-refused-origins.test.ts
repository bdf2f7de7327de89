/**
 * Choices refused for their page's origin: counted per system and origin (at most 50 origins a
 * system, every further one in one "other" row), never for an origin the system lists or a
 * request without one, and shown on the system's page with a hint to add the origin.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { type PublishedSystem, seedPublishedSystem } from '../helpers/cookies.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { choose, standardChoice } from './cookies-support.js';
import { type PageClient, signedIn, startBackofficeApp, textOf } from './support.js';

describe.each(stores)('origins refused on a cookie system on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let admin: PageClient;

  beforeAll(async () => {
    t = await startBackofficeApp(store);
    a = await seedTenant(t.db);
    admin = await signedIn(t.app, a.tenant.email);
  });
  afterAll(() => t?.close());

  /** A choice sent as the banner sends it, from `origin` (none when undefined); its status. */
  const send = async (site: PublishedSystem, origin: string | undefined) => {
    const response = await t.app.inject({
      method: 'POST',
      url: `/cookies/v1/${site.scope}/decisions`,
      headers: {
        'content-type': 'text/plain;charset=UTF-8',
        ...(origin === undefined ? {} : { origin }),
      },
      remoteAddress: '203.0.113.77',
      payload: JSON.stringify({
        event_id: randomUUID(),
        visitor_id: randomUUID(),
        configuration_id: site.configurationId,
        configuration_version: site.version,
        method: 'accept-all',
        categories: standardChoice(true),
        locale: 'en',
      }),
    });
    return response.statusCode;
  };

  /** What the store counted for the system, by origin, once its page was read. */
  const counted = async (site: PublishedSystem) => {
    const page = await admin.get(`/backoffice/cookies/systems/${site.scope}`);
    expect(page.statusCode).toBe(200);
    const rows = await t.db
      .selectFrom('cookie_refused_origins as r')
      .innerJoin('cookie_systems as s', (j) =>
        j.onRef('s.tenant_id', '=', 'r.tenant_id').onRef('s.id', '=', 'r.system_id'),
      )
      .select(['r.origin', 'r.refusals'])
      .where('s.scope', '=', site.scope)
      .execute();
    return {
      page: textOf(page.body),
      counts: Object.fromEntries(rows.map((r) => [r.origin, Number(r.refusals)])),
    };
  };

  it('counts a refused origin and shows it on the system page with its count, last time and a hint', async () => {
    const site = await seedPublishedSystem(t.db, a.tenant.id);
    for (let i = 0; i < 3; i += 1) expect(await send(site, 'https://copy.example')).toBe(403);
    expect(await send(site, 'https://shop.bank.example:8443')).toBe(403);
    const { page, counts } = await counted(site);
    expect(counts).toEqual({ 'https://copy.example': 3, 'https://shop.bank.example:8443': 1 });
    expect(page).toContain(
      "Refused origins Pages on these origins tried to record a visitor's choice and were refused, so nothing was recorded for them. If one is a site of yours, add it to the origins below",
    );
    expect(page).toMatch(/Origin Refused choices Last seen https:\/\/(copy\.example 3|shop)/);
    expect(page).toMatch(/https:\/\/copy\.example 3 \d/);
    expect(page).toMatch(/https:\/\/shop\.bank\.example:8443 1 \d/);
    // Counted once each: reading the page again adds nothing.
    expect((await counted(site)).counts).toEqual(counts);
  });

  it('counts nothing for an origin the system lists, nor for a request without an origin', async () => {
    const site = await seedPublishedSystem(t.db, a.tenant.id);
    expect(await send(site, 'https://www.bank.example')).toBe(201);
    await choose(t.app, site, 'reject-all', standardChoice(false));
    expect(await send(site, undefined)).toBe(403);
    const { page, counts } = await counted(site);
    expect(counts).toEqual({});
    expect(page).not.toContain('Refused origins');
  });

  it('keeps 50 origins a system and counts every further one, and what is no origin, in one other row', async () => {
    const site = await seedPublishedSystem(t.db, a.tenant.id);
    for (let i = 0; i < 55; i += 1) {
      expect(await send(site, `https://copy-${String(i).padStart(2, '0')}.example`)).toBe(403);
    }
    expect(await send(site, 'null')).toBe(403);
    expect(await send(site, 'https://copy-00.example')).toBe(403);
    const first = await counted(site);
    expect(Object.keys(first.counts)).toHaveLength(51);
    expect(first.counts['']).toBe(6);
    expect(first.counts['https://copy-00.example']).toBe(2);
    expect(first.page).toContain('Other origins (past the first 50, or no http(s) origin) 6');
    // A page read in between: the store holds the 50, and new origins still go to the other row.
    expect(await send(site, 'https://late.example')).toBe(403);
    const again = await counted(site);
    expect(Object.keys(again.counts)).toHaveLength(51);
    expect(again.counts['']).toBe(7);
    // Another system has places of its own.
    const shop = await seedPublishedSystem(t.db, a.tenant.id);
    expect(await send(shop, 'https://late.example')).toBe(403);
    expect((await counted(shop)).counts).toEqual({ 'https://late.example': 1 });
  });

  it('an origin added to the system leaves the list', async () => {
    const site = await seedPublishedSystem(t.db, a.tenant.id);
    expect(await send(site, 'https://m.bank.example')).toBe(403);
    expect((await counted(site)).page).toContain('https://m.bank.example 1');
    const page = await admin.get(`/backoffice/cookies/systems/${site.scope}`);
    const name = /name="name"[^>]*value="([^"]*)"/.exec(page.body)?.[1] ?? '';
    const saved = await admin.post(`/backoffice/cookies/systems/${site.scope}`, {
      name,
      origins: 'https://www.bank.example\nhttps://m.bank.example',
    });
    expect(saved.statusCode).toBe(303);
    expect((await counted(site)).page).not.toContain('Refused origins');
  });
});
