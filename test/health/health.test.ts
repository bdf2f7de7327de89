import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { apiOf } from '../helpers/api.js';
import { json, startTestApp, type TestApp } from '../helpers/app.js';
import { publish, type SeededTenant, seedTemplate, seedTenant, unique } from '../helpers/seed.js';
import { decideUntilRefused, storeFaults } from '../helpers/store-faults.js';
import { stores } from '../helpers/stores.js';

/** The contract's two answers, byte for byte, and the degraded one (docs/api-behaviour.md). */
const ok = '{"status":"ok","success":true}';
const unavailable = '{"status":"unavailable","success":false}';
const degraded = '{"status":"degraded","success":false}';
const urls = ['/api/health', '/api/v1/health'];
const release = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

describe.each(stores)('health check on $name', (store) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(store);
  });
  afterAll(async () => {
    await t.close();
  });

  it.each(urls)(
    'when the store answers, %s is 200 {"status":"ok","success":true} without a key, never cached',
    async (url) => {
      const response = await t.app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(response.body).toBe(ok);
      expect(json(response)).toEqual({ status: 'ok', success: true });
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.headers['x-request-id']).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
      // The release answering, as package.json names it (CHANGELOG.md).
      expect(response.headers['consent-service-version']).toBe(release);
    },
  );
});

describe.each(stores)('health check on $name when the store is gone', (store) => {
  it('answers 503 {"status":"unavailable","success":false}, never cached', async () => {
    const t = await startTestApp(store);
    try {
      await t.db.destroy();
      for (const url of urls) {
        const response = await t.app.inject({ method: 'GET', url });
        expect(response.statusCode).toBe(503);
        expect(response.body).toBe(unavailable);
        expect(response.headers['cache-control']).toBe('no-store');
        expect(response.headers['consent-service-version']).toBe(release);
      }
    } finally {
      await t.app.close();
    }
  });
});

describe.each(stores)('health check on $name', (store) => {
  describe.each(storeFaults(store))('when the store $name', (fault) => {
    let t: TestApp;
    let a: SeededTenant;
    let versionId: string;
    let refused = false;

    beforeEach(async () => {
      t = await startTestApp(store);
      a = await seedTenant(t.db);
      const code = await seedTemplate(t.db, a.tenant.id);
      versionId = (await publish(t.db, a.tenant.id, code)).consent_version_id;
    });
    afterEach(async () => {
      vi.useRealTimers();
      if (refused) await fault.restore(t);
      refused = false;
      await t.close();
    });

    const health = async (expected: { status: number; body: string }) => {
      for (const url of urls) {
        const response = await t.app.inject({ method: 'GET', url });
        expect({ url, status: response.statusCode, body: response.body }).toEqual({
          url,
          ...expected,
        });
        expect(response.headers['cache-control']).toBe('no-store');
      }
    };

    if (fault.writesOnly) {
      it('after decisions were refused, answers 503 degraded, and 200 ok again once a decision is recorded', async () => {
        await health({ status: 200, body: ok });
        refused = true;
        await fault.refuse(t);
        await decideUntilRefused(t.app, a.headers, versionId);
        await health({ status: 503, body: degraded });
        await fault.restore(t);
        refused = false;
        // Still degraded: nothing has been written since (health itself never writes).
        await health({ status: 503, body: degraded });
        const api = apiOf(t.app, a.headers);
        // A PostgreSQL session opened while the database was read-only may refuse one more.
        let recorded = false;
        for (let i = 0; i < t.config.databasePoolSize + 1 && !recorded; i += 1) {
          recorded = (await api.decide(unique('after'), versionId, 'given')).statusCode === 201;
        }
        expect(recorded).toBe(true);
        await health({ status: 200, body: ok });
      });

      it('with no write tried for 30 s after the last refusal, answers 200 ok again, so that the instance is tried again', async () => {
        vi.useFakeTimers({ toFake: ['Date'] });
        const start = Date.parse('2031-05-01T10:00:00.000Z');
        vi.setSystemTime(start);
        refused = true;
        await fault.refuse(t);
        await decideUntilRefused(t.app, a.headers, versionId);
        vi.setSystemTime(start + 29_000);
        await health({ status: 503, body: degraded });
        vi.setSystemTime(start + 30_000);
        await health({ status: 200, body: ok });
      });
    } else {
      it('answers 503 {"status":"unavailable","success":false}', async () => {
        refused = true;
        await fault.refuse(t);
        await health({ status: 503, body: unavailable });
      });
    }
  });
});
