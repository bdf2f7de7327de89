/**
 * A scan's bookkeeping on each store, without a browser: the order checked before anything is
 * kept, one `running` scan per system across instances (the store's unique index), and a scan
 * its instance left running past the time limit set aside as `interrupted`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanHistory, startScan } from '../../src/cookie-scanner/index.js';
import { loadConfig } from '../../src/platform/config.js';
import { AppError } from '../../src/platform/errors.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedPublishedSystem } from '../helpers/cookies.js';
import { seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';

async function refusal(act: Promise<unknown>) {
  try {
    await act;
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return { kind: error.kind, message: error.message, fields: error.details?.map((d) => d.field) };
  }
  throw new Error('the act was not refused');
}

describe.each(stores)('scans of a system on $name', (store) => {
  let t: TestApp;
  let tenantId: string;
  const settings = loadConfig({}).cookieScans;
  const order = (system: string, more: object = {}) => ({
    tenantId,
    system,
    trigger: 'back-office' as const,
    actor: 'user-1',
    ...more,
  });

  beforeAll(async () => {
    t = await startTestApp(store);
    tenantId = (await seedTenant(t.db)).tenant.id;
  });
  afterAll(async () => t.close());

  it('starts from each of the system’s origins, ten pages unless told', async () => {
    const { scope } = await seedPublishedSystem(t.db, tenantId, {
      origins: ['https://www.shop.example', 'https://m.shop.example'],
    });
    const { row } = await startScan(t.db, settings, order(scope));
    expect(row).toMatchObject({ status: 'running', pages_limit: 10, trigger: 'back-office' });
    expect(JSON.parse(row.urls)).toEqual(['https://www.shop.example/', 'https://m.shop.example/']);
  });

  it('a second scan of a system while one runs: 409 1005; another system’s runs', async () => {
    const one = await seedPublishedSystem(t.db, tenantId);
    const two = await seedPublishedSystem(t.db, tenantId);
    await startScan(t.db, settings, order(one.scope));
    expect(await refusal(startScan(t.db, settings, order(one.scope)))).toMatchObject({
      kind: 'conflict',
      message: 'A scan of this system is running: wait for it to finish.',
    });
    await expect(startScan(t.db, settings, order(two.scope))).resolves.toBeDefined();
    const history = await scanHistory(t.db, tenantId, one.scope);
    expect(history.map((s) => s.status)).toEqual(['running']);
  });

  it('a scan left running past the time limit is interrupted, and a new one starts', async () => {
    const { scope } = await seedPublishedSystem(t.db, tenantId);
    const { row } = await startScan(t.db, settings, order(scope));
    // Its instance stopped long ago: started before the time limit and two minutes more.
    const long = new Date(Date.now() - settings.timeLimitMs - 180_000).toISOString();
    await t.db
      .updateTable('cookie_scans')
      .set({ started_at: long })
      .where('id', '=', row.id)
      .execute();
    await startScan(t.db, settings, order(scope));
    const history = await scanHistory(t.db, tenantId, scope);
    expect(history.map((s) => s.status)).toEqual(['running', 'interrupted']);
    expect(history[1]?.error).toBe('Its instance stopped during the scan.');
  });

  it.each([
    ['a URL that is not http(s)', { urls: ['file:///etc/passwd'] }, 'urls.0'],
    ['no URL at all', { urls: ['not a url'] }, 'urls.0'],
    ['0 pages', { pages: 0 }, 'pages'],
    ['101 pages', { pages: 101 }, 'pages'],
  ])('refuses %s (400 1001 naming it), keeping nothing', async (_name, more, field) => {
    const { scope } = await seedPublishedSystem(t.db, tenantId);
    expect(await refusal(startScan(t.db, settings, order(scope, more)))).toMatchObject({
      kind: 'invalidRequest',
      fields: [field],
    });
    expect(await scanHistory(t.db, tenantId, scope)).toEqual([]);
  });

  it('a system that is not the tenant’s: 404 1004', async () => {
    expect(
      await refusal(startScan(t.db, settings, order('cs_00000000000000000000'))),
    ).toMatchObject({
      kind: 'notFound',
    });
  });
});
