/**
 * A system's consent analytics in the back-office (docs/cookies.md, "Consent analytics"): from
 * stored choices, by the tenant's days (Asia/Bangkok here: 17:00 UTC starts a day), by region and
 * by variant, on the page and as CSV. Rates' intervals are reference values computed apart with
 * Python's `math` (Wilson's formula, z = 1.959963984540054).
 */

import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { type PublishedSystem, postChoice, seedPublishedSystem } from '../helpers/cookies.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { type PageClient, signedIn, startBackofficeApp, textOf } from './support.js';

const all = { necessary: true, analytics: true, marketing: true };
const none = { necessary: true, analytics: false, marketing: false };

describe.each(stores)('consent analytics on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let admin: PageClient;
  let site: PublishedSystem;
  const path = () => `/backoffice/cookies/systems/${site.scope}/analytics`;

  beforeAll(async () => {
    t = await startBackofficeApp(store);
    a = await seedTenant(t.db);
    admin = await signedIn(t.app, a.tenant.email);
    await admin.get('/backoffice/settings');
    await admin.post('/backoffice/settings', { time_zone: 'Asia/Bangkok', four_eyes: 'true' });
    site = await seedPublishedSystem(t.db, a.tenant.id, { categories: ['analytics', 'marketing'] });
    // Stored choices, placed at the instants and regions the test reads them by.
    const choices = [
      ['2026-02-28T16:59:59.000Z', 'accept-all', all, 'TH'], // Bangkok 28 Feb: before the period
      ['2026-03-01T16:59:59.000Z', 'accept-all', all, 'TH'], // 1 March, 23:59:59
      ['2026-03-01T17:00:00.000Z', 'reject-all', none, 'TH'], // 2 March, midnight
      ['2026-03-02T05:00:00.000Z', 'custom', { ...none, analytics: true }, 'US-CA'],
      ['2026-03-02T16:59:59.999Z', 'accept-all', all, null], // 2 March, the last instant
      ['2026-03-02T17:00:00.000Z', 'accept-all', all, 'TH'], // 3 March: after the period
    ] as const;
    for (const [n, [at, method, categories, region]] of choices.entries()) {
      const { decision_id } = await postChoice(
        t.app,
        site,
        {
          visitorId: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
          method,
          categories,
          locale: 'en',
        },
        { origin: 'https://www.bank.example', userAgent: 'Browser/1.0' },
      );
      await t.db
        .updateTable('cookie_decisions')
        .set({ decided_at: at, region })
        .where('id', '=', decision_id)
        .execute();
    }
  });
  afterAll(() => t?.close());

  it('counts each day’s choices in the tenant’s zone, by region, with each category’s opt-in rate and interval, and a chart', async () => {
    const page = await admin.get(`${path()}?from=2026-03-01&to=2026-03-02`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<svg role="img" aria-labelledby="analytics-chart-title"');
    const text = textOf(page.body).replace(/\s+/g, ' ');
    // Day, choices, accept all, reject all, custom, GPC, analytics, marketing.
    expect(text).toContain(
      'By day Day Choices Accept all Reject all Custom GPC Analytics Marketing 2026-03-01 1 1 0 0 0 100.0% (20.7% to 100.0%) 100.0% (20.7% to 100.0%) 2026-03-02 3 1 1 1 0 66.7% (20.8% to 93.9%) 33.3% (6.1% to 79.2%)',
    );
    expect(text).toContain(
      'By region Region Choices Accept all Reject all Custom GPC Analytics Marketing Unknown 1 1 0 0 0 100.0% (20.7% to 100.0%) 100.0% (20.7% to 100.0%) TH 2 1 1 0 0 50.0% (9.5% to 90.5%) 50.0% (9.5% to 90.5%) US-CA 1 0 0 1 0 100.0% (20.7% to 100.0%) 0.0% (0.0% to 79.3%)',
    );
  });

  it('downloads the same as CSV, a row per day, region and variant', async () => {
    const csv = await admin.get(`${path()}.csv?from=2026-03-01&to=2026-03-02`);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(parse(csv.body)).toEqual([
      [
        'day',
        'region',
        'variant',
        'choices',
        'accept_all',
        'reject_all',
        'custom',
        'gpc',
        'analytics_offered',
        'analytics_granted',
        'marketing_offered',
        'marketing_granted',
        'time_zone',
      ],
      ['2026-03-01', 'TH', '', '1', '1', '0', '0', '0', '1', '1', '1', '1', 'Asia/Bangkok'],
      ['2026-03-02', '', '', '1', '1', '0', '0', '0', '1', '1', '1', '1', 'Asia/Bangkok'],
      ['2026-03-02', 'TH', '', '1', '0', '1', '0', '0', '1', '0', '1', '0', 'Asia/Bangkok'],
      ['2026-03-02', 'US-CA', '', '1', '0', '0', '1', '0', '1', '1', '1', '0', 'Asia/Bangkok'],
    ]);
  });

  it('lists every day of the period, one without choices at zero', async () => {
    const text = textOf((await admin.get(`${path()}?from=2026-02-27&to=2026-02-28`)).body).replace(
      /\s+/g,
      ' ',
    );
    expect(text).toContain('2026-02-27 0 0 0 0 0 — — 2026-02-28 1 1 0 0 0');
  });

  it('a period that is none, or longer than 92 days, shows the form again with why (400)', async () => {
    for (const [query, message] of [
      ['from=2026-03-05&to=2026-03-01', 'The last day must not come before from.'],
      ['from=2026-01-01&to=2026-04-30', 'The last day must be at most 92 days after from.'],
      ['from=yesterday&to=2026-03-01', 'The first day must be a day, such as 2026-11-01.'],
    ] as const) {
      const page = await admin.get(`${path()}?${query}`);
      expect(page.statusCode, query).toBe(400);
      expect(textOf(page.body)).toContain(message);
    }
    expect(
      (await admin.get('/backoffice/cookies/systems/cs_00000000000000000000/analytics')).statusCode,
    ).toBe(404);
  });
});
