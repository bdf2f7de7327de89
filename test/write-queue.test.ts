import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWriteQueue, type WriteQueue } from '../src/platform/write-queue.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { seedTenant } from './helpers/seed.js';
import { storeFaults } from './helpers/store-faults.js';
import { stores } from './helpers/stores.js';

describe.each(stores)('the write queue on $name', (store) => {
  let t: TestApp;
  let tenantId: string;
  let queue: WriteQueue;

  beforeAll(async () => {
    t = await startTestApp(store);
    tenantId = (await seedTenant(t.db)).tenant.id;
    queue = createWriteQueue(t.db);
  });
  afterAll(async () => {
    await t.close();
  });

  /** A unit of work that stores one template (any small insert would do). */
  const insert =
    (code: string, order?: string[], description = '') =>
    (trx: Parameters<Parameters<WriteQueue['transaction']>[0]>[0]) => {
      order?.push(code);
      return trx
        .insertInto('templates')
        .values({
          tenant_id: tenantId,
          id: code,
          code,
          name: code,
          description,
          created_at: new Date().toISOString(),
          default_locale: 'en',
        })
        .execute()
        .then(() => code);
    };

  const stored = async (codes: string[]) =>
    (await t.db.selectFrom('templates').select('code').where('code', 'in', codes).execute())
      .map((r) => r.code)
      .sort();

  it('a failing unit leaves the others that arrived with it stored (in order of arrival on SQLite)', async () => {
    const order: string[] = [];
    const codes = ['wq-a', 'wq-b', 'wq-c'];
    const results = await Promise.allSettled([
      queue.transaction(insert(codes[0]!, order)),
      queue.transaction(async (trx) => {
        await insert(codes[1]!, order)(trx);
        throw new Error('this unit fails after writing');
      }),
      queue.transaction(insert(codes[2]!, order)),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    // SQLite runs them one after another in one transaction; PostgreSQL side by side.
    if (store.name === 'sqlite') expect(order).toEqual(codes);
    else expect([...order].sort()).toEqual(codes);
    expect(await stored(codes)).toEqual(['wq-a', 'wq-c']);
  });

  it('a unit is committed by the time its promise resolves', async () => {
    await queue.transaction(insert('wq-durable'));
    if (store.name !== 'sqlite') {
      expect(await stored(['wq-durable'])).toEqual(['wq-durable']);
      return;
    }
    // Another connection to the file sees it: it is committed, not only in our transaction.
    const other = new Database(t.config.databaseUrl, { readonly: true });
    try {
      const row = other.prepare('select code from templates where code = ?').get('wq-durable');
      expect(row).toEqual({ code: 'wq-durable' });
    } finally {
      other.close();
    }
  });

  it('many units arriving together share commits on SQLite (one each on PostgreSQL)', async () => {
    const before = queue.stats();
    const codes = Array.from({ length: 100 }, (_, i) => `wq-many-${i}`);
    await Promise.all(codes.map((code) => queue.transaction(insert(code))));
    const after = queue.stats();
    const units = after.units - before.units;
    const commits = after.commits - before.commits;
    expect(units).toBe(100);
    if (store.name === 'sqlite') expect(commits).toBeLessThan(10);
    else expect(commits).toBe(100);
    expect(await stored(codes)).toHaveLength(100);
  });

  it("when the store refuses writes, every unit of the batch is rejected with the store's own error, and the queue works again once it accepts them", async () => {
    const fault = storeFaults(store).find((f) => f.writesOnly);
    if (!fault) throw new Error(`no write fault for ${store.name}`);
    // Larger than a page: each unit needs new pages, which a full SQLite store refuses.
    const large = 'x'.repeat(16_384);
    const codes = ['wq-refused-a', 'wq-refused-b', 'wq-refused-c'];
    await fault.refuse(t);
    let results: PromiseSettledResult<string>[];
    try {
      results = await Promise.allSettled(
        codes.map((code) => queue.transaction(insert(code, undefined, large))),
      );
    } finally {
      await fault.restore(t);
    }
    expect(
      results.map((r) =>
        r.status === 'rejected' ? (r.reason as { code?: unknown }).code : r.value,
      ),
    ).toEqual(codes.map(() => fault.code));
    // A PostgreSQL session opened while the database was read-only stays so: each such session in
    // the pool fails one more unit, with the same error, and is replaced.
    const attempts = store.name === 'sqlite' ? 1 : t.config.databasePoolSize + 1;
    const refusedAfter: unknown[] = [];
    let after: string | undefined;
    for (let i = 0; i < attempts && after === undefined; i += 1) {
      after = await queue.transaction(insert('wq-after-refusal', undefined, large)).catch((e) => {
        refusedAfter.push((e as { code?: unknown }).code);
        return undefined;
      });
    }
    expect(after).toBe('wq-after-refusal');
    expect(refusedAfter.filter((code) => code !== fault.code)).toEqual([]);
    expect(await stored([...codes, 'wq-after-refusal'])).toEqual(['wq-after-refusal']);
  });
});
