/**
 * `last_used_at` is written at most once a minute per key (docs/api-behaviour.md). The clock the
 * service reads (`Date`) is set by the test; timers stay real. The store is used through one
 * connection, so a read made after a request runs after any write that request started.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { apiOf } from '../helpers/api.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';

const t0 = Date.parse('2031-05-01T10:00:00.000Z');
const at = (ms: number) => new Date(t0 + ms).toISOString();

describe.each(stores)('when a key is used on $name', (store) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(store, { DATABASE_POOL_SIZE: '1' });
  });
  afterAll(async () => {
    await t.close();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const lastUsed = async (a: SeededTenant) =>
    (
      await t.db
        .selectFrom('api_keys')
        .select('last_used_at')
        .where('id', '=', a.apiKey.id)
        .executeTakeFirstOrThrow()
    ).last_used_at;

  /** Reads `last_used_at` until it is `expected`, within a budget of real time. */
  async function expectLastUsedBecomes(a: SeededTenant, expected: string): Promise<void> {
    const deadline = performance.now() + budget(5_000);
    let seen = await lastUsed(a);
    while (seen !== expected && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      seen = await lastUsed(a);
    }
    expect(seen).toBe(expected);
  }

  it('a second use within the minute leaves the first time, and a use after the minute records its own', async () => {
    const a = await seedTenant(t.db);
    const c = await seedTemplate(t.db, a.tenant.id);
    await publish(t.db, a.tenant.id, c);
    const api = apiOf(t.app, a.headers);
    vi.useFakeTimers({ toFake: ['Date'] });

    vi.setSystemTime(t0);
    expect((await api.latest(c)).statusCode).toBe(200);
    await expectLastUsedBecomes(a, at(0));

    vi.setSystemTime(t0 + 59_000);
    expect((await api.latest(c)).statusCode).toBe(200);
    // One connection: this read queues behind any write the request above started.
    expect(await lastUsed(a)).toBe(at(0));

    vi.setSystemTime(t0 + 61_000);
    expect((await api.latest(c)).statusCode).toBe(200);
    await expectLastUsedBecomes(a, at(61_000));

    vi.setSystemTime(t0 + 90_000);
    expect((await api.latest(c)).statusCode).toBe(200);
    expect(await lastUsed(a)).toBe(at(61_000));
  });
});
