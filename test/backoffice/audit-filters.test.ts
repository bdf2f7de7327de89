import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOfDayIn } from '../../src/backoffice/web/time-zone.js';
import type { TestApp } from '../helpers/app.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { type PageClient, signedIn, startBackofficeApp, textOf } from './support.js';

describe('days of a time zone as UTC instants', () => {
  it.each([
    ['2026-01-03', 'Asia/Bangkok', 0, '2026-01-02T17:00:00.000Z'],
    ['2026-01-03', 'UTC', 0, '2026-01-03T00:00:00.000Z'],
    // Berlin moves its clocks forward on 29 March 2026: that day has 23 hours.
    ['2026-03-29', 'Europe/Berlin', 0, '2026-03-28T23:00:00.000Z'],
    ['2026-03-29', 'Europe/Berlin', 1, '2026-03-29T22:00:00.000Z'],
    // New York moves them back on 1 November 2026: that day has 25 hours.
    ['2026-11-01', 'America/New_York', 0, '2026-11-01T04:00:00.000Z'],
    ['2026-11-01', 'America/New_York', 1, '2026-11-02T05:00:00.000Z'],
  ])('%s in %s, +%i day: %s', (day, zone, days, expected) => {
    expect(startOfDayIn(day, zone, days)).toBe(expected);
  });
});

/** Entries at known times, as the service writes them (the columns of audit_log). */
const entries = [
  ['2026-03-01T10:00:00.000Z', 'ann@acme.test', 'Ann', 'template.created', 'privacy_policy'],
  ['2026-03-02T09:00:00.000Z', 'bob@acme.test', 'Bob', 'version.published', 'privacy_policy 2.0'],
  ['2026-03-02T23:30:00.000Z', 'ann@acme.test', 'Ann', 'api_key.created', 'mobile_app'],
  ['2026-03-03T12:00:00.000Z', 'Bob@Acme.test', 'Bob', 'template.created', '100%_sure'],
  ['2026-03-04T08:00:00.000Z', 'ann@acme.test', 'Ann', 'version.published', 'terms 1.0'],
] as const;

describe.each(stores)('filtering the audit log, on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let admin: PageClient;

  beforeAll(async () => {
    t = await startBackofficeApp(store);
    a = await seedTenant(t.db);
    let n = 0;
    for (const [created_at, actor, actor_name, action, target] of entries) {
      n += 1;
      await t.db
        .insertInto('audit_log')
        .values({
          id: `0190e8a0-0000-7000-8000-${String(n).padStart(12, '0')}`,
          tenant_id: a.tenant.id,
          actor_kind: 'tenant',
          actor,
          actor_name,
          action,
          target,
          details: null,
          ip: '192.0.2.1',
          user_agent: null,
          created_at,
        })
        .execute();
    }
    // Sixty more, to page through with a filter on.
    for (let i = 0; i < 60; i += 1) {
      await t.db
        .insertInto('audit_log')
        .values({
          id: `0190e8a0-0000-7000-8001-${String(i).padStart(12, '0')}`,
          tenant_id: a.tenant.id,
          actor_kind: 'tenant',
          actor: 'cy@acme.test',
          actor_name: 'Cy',
          action: 'customer.looked_up',
          target: `subject ${i}`,
          details: null,
          ip: '192.0.2.1',
          user_agent: null,
          created_at: `2026-02-01T00:${String(i).padStart(2, '0')}:00.000Z`,
        })
        .execute();
    }
    admin = await signedIn(t.app, a.tenant.email);
  });
  afterAll(() => t?.close());

  /** The targets of the entries a filtered page shows, newest first. */
  async function targets(query: string): Promise<string[]> {
    const page = await admin.get(`/backoffice/audit?${query}`);
    expect(page.statusCode).toBe(200);
    const body = page.body.split('<tbody>')[1] ?? '';
    return [...body.matchAll(/<td class="mono">[a-z_.]+<\/td>\n<td>([^<]*)<\/td>/g)].map(
      (m) => m[1] ?? '',
    );
  }

  it("the Who column names the person: a known account's entry made before signing in gets its name, and no entry says 'tenant' or 'anonymous'", async () => {
    const add = (n: number, actor: string, kind: 'tenant' | 'anonymous', name: string | null) =>
      t.db
        .insertInto('audit_log')
        .values({
          id: `0190e8a0-0000-7000-8000-${String(900 + n).padStart(12, '0')}`,
          tenant_id: a.tenant.id,
          actor_kind: kind,
          actor,
          actor_name: name,
          action: 'sign_in.failed',
          target: `who-${n}`,
          details: null,
          ip: '192.0.2.9',
          user_agent: null,
          created_at: `2026-03-10T0${n}:00:00.000Z`,
        })
        .execute();
    // A wrong password for the tenant's first user (named "Administrator" when registered), a
    // wrong one for an e-mail no account has, and an entry of a signed-in user.
    await add(1, a.tenant.email, 'anonymous', null);
    await add(2, 'nobody@acme.test', 'anonymous', null);
    await add(3, a.tenant.email, 'tenant', null);
    const page = await admin.get('/backoffice/audit?action=sign_in.failed');
    const rows = (page.body.split('<tbody>')[1] ?? '').split('</tr>').map(textOf);
    const row = (n: number) => rows.find((r) => r.includes(`who-${n}`)) ?? '';
    expect(row(1)).toContain(`Administrator ${a.tenant.email} not signed in, from 192.0.2.9`);
    expect(row(2)).toContain('nobody@acme.test not signed in, from 192.0.2.9');
    expect(row(3)).toContain(`Administrator ${a.tenant.email} from 192.0.2.9`);
    for (const n of [1, 2, 3]) {
      expect(row(n)).not.toMatch(/\b(tenant|anonymous)\b/);
    }
  });

  it('by who acted (any case), by action, and by part of the target (%, _ taken literally)', async () => {
    expect(await targets('actor=bob%40acme.test')).toEqual(['100%_sure', 'privacy_policy 2.0']);
    expect(await targets('action=version.published')).toEqual(['terms 1.0', 'privacy_policy 2.0']);
    expect(await targets('target=PRIVACY')).toEqual(['privacy_policy 2.0', 'privacy_policy']);
    expect(await targets('target=0%25_')).toEqual(['100%_sure']);
    expect(await targets('target=%25')).toEqual(['100%_sure']);
    expect(await targets('target=_')).toEqual([
      '100%_sure',
      'mobile_app',
      'privacy_policy 2.0',
      'privacy_policy',
    ]);
    expect(await targets('target=y_p')).toEqual(['privacy_policy 2.0', 'privacy_policy']);
    expect(await targets('actor=ann%40acme.test&action=template.created')).toEqual([
      'privacy_policy',
    ]);
  });

  it('by days, taken in the tenant’s time zone', async () => {
    expect(await targets('from=2026-03-02&to=2026-03-03')).toEqual([
      '100%_sure',
      'mobile_app',
      'privacy_policy 2.0',
    ]);
    await t.db
      .updateTable('tenants')
      .set({ time_zone: 'Asia/Bangkok' })
      .where('id', '=', a.tenant.id)
      .execute();
    // In Bangkok, 2026-03-02T23:30Z is already 3 March.
    expect(await targets('from=2026-03-02&to=2026-03-02')).toEqual(['privacy_policy 2.0']);
    expect(await targets('from=2026-03-03&to=2026-03-03')).toEqual(['100%_sure', 'mobile_app']);
    await t.db
      .updateTable('tenants')
      .set({ time_zone: 'UTC' })
      .where('id', '=', a.tenant.id)
      .execute();
  });

  it('pages stay keyset-based with the filter kept on the Older link', async () => {
    const first = await admin.get('/backoffice/audit?action=customer.looked_up');
    const older = /<a href="(\/backoffice\/audit\?[^"]+)">Older<\/a>/
      .exec(first.body)?.[1]
      ?.replace(/&amp;/g, '&');
    expect(older).toContain('action=customer.looked_up');
    expect(older).toContain('before=2026-02-01T00%3A10%3A00.000Z');
    const rest = await targets(older?.split('?')[1] ?? '');
    expect(rest).toEqual(Array.from({ length: 10 }, (_, i) => `subject ${9 - i}`));
  });

  it('the CSV holds the filtered entries, oldest first, and the download records its filter', async () => {
    const csv = await admin.get('/backoffice/audit.csv?actor=ann%40acme.test&from=2026-03-02');
    expect(csv.statusCode).toBe(200);
    const rows = parse(csv.body, { columns: true }) as Array<Record<string, string>>;
    expect(rows.map((r) => [r.actor, r.actor_name, r.action, r.target])).toEqual([
      ['ann@acme.test', 'Ann', 'api_key.created', 'mobile_app'],
      ['ann@acme.test', 'Ann', 'version.published', 'terms 1.0'],
    ]);
    const recorded = await t.db
      .selectFrom('audit_log')
      .select('details')
      .where('action', '=', 'export.audit')
      .executeTakeFirstOrThrow();
    expect(JSON.parse(recorded.details ?? '{}')).toEqual({
      filter: { from: '2026-03-02T00:00:00.000Z', actor: 'ann@acme.test' },
    });
  });

  it('by a target or an actor that is an id, whole or in part, in any case (SQLite holds ids as their bytes)', async () => {
    const key = '0190e8a0-0000-7000-8000-0000000000aa';
    const decision = '0190e8a0-0000-7000-8000-00000000abcd';
    await t.db
      .insertInto('audit_log')
      .values({
        id: '0190e8a0-0000-7000-8000-000000000099',
        tenant_id: a.tenant.id,
        actor_kind: 'tenant',
        actor: key,
        actor_name: 'App',
        action: 'decision.viewed',
        target: decision,
        details: null,
        ip: '192.0.2.1',
        user_agent: null,
        created_at: '2026-03-05T08:00:00.000Z',
      })
      .execute();
    expect(await targets(`target=${decision}`)).toEqual([decision]);
    expect(await targets('target=00000000ABCD')).toEqual([decision]);
    expect(await targets(`actor=${key}`)).toEqual([decision]);
    expect(await targets(`actor=${key.toUpperCase()}`)).toEqual([decision]);
  });

  it('a day that is none, or a range that ends before it starts, is 400 with the reason', async () => {
    const bad = await admin.get('/backoffice/audit?from=2026-02-30');
    expect(bad.statusCode).toBe(400);
    expect(textOf(bad.body)).toContain('A day of the calendar.');
    const backwards = await admin.get('/backoffice/audit?from=2026-03-04&to=2026-03-01');
    expect(backwards.statusCode).toBe(400);
    expect(textOf(backwards.body)).toContain('The last day comes on or after the first.');
    const shape = await admin.get('/backoffice/audit?from=March');
    expect(shape.statusCode).toBe(400);
    expect((await admin.get('/backoffice/audit.csv?to=2026-13-01')).statusCode).toBe(400);
  });
});
