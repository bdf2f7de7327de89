/**
 * Rules by region through the real HTTP stack, the region found in a MaxMind-format database
 * (MaxMind's test file: `216.160.83.56` is in Washington, US; `81.2.69.142` in England, GB):
 * the script's mode and caching, and the region recorded with a choice.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultContent } from '../../src/cookies/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { type PublishedSystem, seedPublishedSystem } from '../helpers/cookies.js';
import { seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';

const database = join(import.meta.dirname, '../fixtures/maxmind/GeoIP2-City-Test.mmdb');
const washington = '216.160.83.56';
const england = '81.2.69.142';
const origin = 'https://www.bank.example';

describe.each(stores)('rules by region from a MaxMind database on $name', (store) => {
  let t: TestApp;
  let regional: PublishedSystem;
  let plain: PublishedSystem;

  beforeAll(async () => {
    t = await startTestApp(store, { VISITOR_REGION_DATABASE: database });
    const tenantId = (await seedTenant(t.db)).tenant.id;
    regional = await seedPublishedSystem(t.db, tenantId, {
      content: {
        ...defaultContent(['analytics', 'marketing']),
        regions: [
          { codes: ['US-WA'], mode: 'opt-out' },
          { codes: ['GB', 'EEA'], mode: 'opt-in' },
        ],
      },
    });
    plain = await seedPublishedSystem(t.db, tenantId, { categories: ['analytics'] });
  });
  afterAll(async () => t.close());

  const script = (scope: string, address: string) =>
    t.app.inject({
      method: 'GET',
      url: `/cookies/v1/${scope}/banner.js`,
      remoteAddress: address,
    });

  it('serves the opt-out banner to Washington and the opt-in one to England, each kept by the browser only', async () => {
    const west = await script(regional.scope, washington);
    const english = await script(regional.scope, england);
    expect(west.statusCode).toBe(200);
    expect(west.body).toContain('"mode":"opt-out"');
    expect(english.body).not.toContain('"mode"');
    expect(west.headers.etag).not.toBe(english.headers.etag);
    for (const response of [west, english]) {
      expect(response.headers['cache-control']).toBe(
        'private, max-age=240, stale-while-revalidate=60',
      );
      expect(response.headers.vary).toBe('Sec-GPC');
    }
    // An address the database has not: the default, opt-in.
    expect((await script(regional.scope, '127.0.0.1')).body).not.toContain('"mode"');
  });

  it('serves a configuration without rules as before, public, whoever asks', async () => {
    const response = await script(plain.scope, washington);
    expect(response.headers['cache-control']).toBe(
      'public, max-age=240, stale-while-revalidate=60',
    );
    expect(response.headers.vary).toBe('Sec-GPC');
    expect(response.body).not.toContain('"mode"');
  });

  it('records the region with each choice, and none where the database does not know', async () => {
    const choose = (address: string) =>
      t.app.inject({
        method: 'POST',
        url: `/cookies/v1/${regional.scope}/decisions`,
        headers: { origin, 'content-type': 'text/plain;charset=UTF-8' },
        remoteAddress: address,
        payload: JSON.stringify({
          event_id: randomUUID(),
          visitor_id: randomUUID(),
          configuration_id: regional.configurationId,
          configuration_version: regional.version,
          method: 'reject-all',
          categories: { necessary: true, analytics: false, marketing: false },
          locale: 'en',
        }),
      });
    const ids: string[] = [];
    for (const address of [washington, england, '127.0.0.1']) {
      const response = await choose(address);
      expect(response.statusCode, response.body).toBe(201);
      ids.push(response.json().data.decision_id);
    }
    const rows = await t.db
      .selectFrom('cookie_decisions')
      .select(['id', 'region'])
      .where('id', 'in', ids)
      .execute();
    const byId = new Map(rows.map((row) => [row.id, row.region]));
    expect(ids.map((id) => byId.get(id))).toEqual(['US-WA', 'GB-ENG', null]);
  });
});
