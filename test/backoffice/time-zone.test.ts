import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { time } from '../../src/backoffice/web/format.js';
import { getTenantSettings, setTenantSettings } from '../../src/tenants/service.js';
import type { TestApp } from '../helpers/app.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { storeAgnostic } from '../helpers/stores.js';
import { type PageClient, signedIn, startBackofficeApp, textOf } from './support.js';

describe('times as the back-office shows them', () => {
  it('in UTC, as stored, to the second', () => {
    expect(time('2026-01-02T03:04:05.123Z').text).toBe(
      '<time datetime="2026-01-02T03:04:05.123Z"><span class="nowrap">2026-01-02</span> <span class="nowrap">03:04:05 UTC</span></time>',
    );
  });

  it("in the tenant's zone, with the offset of that moment, the exact instant kept", () => {
    expect(time('2026-01-02T20:04:05.000Z', 'Asia/Bangkok').text).toBe(
      '<time datetime="2026-01-02T20:04:05.000Z"><span class="nowrap">2026-01-03</span> <span class="nowrap">03:04:05 GMT+7</span></time>',
    );
    // New York moves its clocks forward at 2:00 on 8 March 2026.
    expect(time('2026-03-08T06:59:59.000Z', 'America/New_York').text).toContain(
      '2026-03-08</span> <span class="nowrap">01:59:59 GMT-5',
    );
    expect(time('2026-03-08T07:00:00.000Z', 'America/New_York').text).toContain(
      '2026-03-08</span> <span class="nowrap">03:00:00 GMT-4',
    );
    expect(time('2026-06-01T12:00:00.000Z', 'Asia/Kolkata').text).toContain('17:30:00 GMT+5:30');
  });

  it('nothing to show is a dash', () => {
    expect(time(null, 'Asia/Bangkok').text).toBe('<span class="muted">—</span>');
  });
});

describe.each(storeAgnostic)('the time zone setting on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let admin: PageClient;
  beforeAll(async () => {
    t = await startBackofficeApp(store);
    a = await seedTenant(t.db);
    admin = await signedIn(t.app, a.tenant.email);
  });
  afterAll(() => t?.close());

  const options = (body: string) =>
    [...body.matchAll(/<option value="([^"]+)"/g)].map((m) => m[1] ?? '');

  it('lists the current IANA names (Asia/Kolkata, Asia/Ho_Chi_Minh, Europe/Kyiv), not the old ones', async () => {
    const zones = options((await admin.get('/backoffice/settings')).body);
    expect(zones).toEqual(
      expect.arrayContaining(['UTC', 'Asia/Kolkata', 'Asia/Ho_Chi_Minh', 'Europe/Kyiv']),
    );
    for (const old of ['Asia/Calcutta', 'Asia/Saigon', 'Europe/Kiev', 'Asia/Katmandu']) {
      expect(zones).not.toContain(old);
    }
    expect(new Set(zones).size).toBe(zones.length);
  });

  it('a tenant whose stored zone is an old name sees it under its current name, and saving keeps working', async () => {
    await setTenantSettings(t.db, a.tenant.id, {
      ...(await getTenantSettings(t.db, a.tenant.id)),
      timeZone: 'Asia/Calcutta',
    });
    const page = await admin.get('/backoffice/settings');
    expect(page.body).toContain('<option value="Asia/Kolkata" selected>');
    // Times are still shown in it.
    expect(textOf((await admin.get('/backoffice/audit')).body)).toContain('GMT+5:30');
    const saved = await admin.post('/backoffice/settings', {
      time_zone: 'Asia/Kolkata',
      four_eyes: 'true',
    });
    expect(saved.statusCode).toBe(303);
    expect((await getTenantSettings(t.db, a.tenant.id)).timeZone).toBe('Asia/Kolkata');
    // An old name sent by an old form is taken as its current one.
    expect(
      (await admin.post('/backoffice/settings', { time_zone: 'Europe/Kiev', four_eyes: 'true' }))
        .statusCode,
    ).toBe(303);
    expect((await getTenantSettings(t.db, a.tenant.id)).timeZone).toBe('Europe/Kyiv');
  });
});
