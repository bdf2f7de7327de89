import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { parseVerifierKey, verifyReceipt } from '../../src/proof/index.js';
import { apiOf } from '../helpers/api.js';
import { json, type TestApp, testLogKeys } from '../helpers/app.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { type PageClient, signedIn, startBackofficeApp, textOf } from './support.js';

describe.each(stores)('the decision log in the back-office on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let b: SeededTenant;
  let pageA: PageClient;
  let versionId: string;

  beforeAll(async () => {
    // Appends happen when a test asks (a receipt with ?wait=true runs a pass).
    t = await startBackofficeApp(store, { LOG_INTEGRATE_INTERVAL_MS: '60000' });
    a = await seedTenant(t.db);
    b = await seedTenant(t.db);
    const code = await seedTemplate(t.db, a.tenant.id);
    versionId = (await publish(t.db, a.tenant.id, code)).consent_version_id;
    pageA = await signedIn(t.app, a.tenant.email);
  });
  afterAll(async () => {
    await t.close();
  });

  async function decide(customer: string): Promise<string> {
    const response = await apiOf(t.app, a.headers).decide(customer, versionId, 'given');
    expect(response.statusCode).toBe(201);
    return json(response).data.decision_id;
  }
  const appendNow = (id: string) =>
    t.app.inject({
      method: 'GET',
      url: `/api/v1/decisions/${id}/receipt?wait=true`,
      headers: a.headers,
    });

  it('before any decision, the log page says the log starts with the first one and shows the verifier key', async () => {
    const page = await pageA.get('/backoffice/log');
    expect(page.statusCode).toBe(200);
    expect(textOf(page.body)).toContain('Nothing appended yet');
    expect(page.body).toContain(testLogKeys.verifierKey);
    expect(textOf(page.body)).toContain('No audit has run yet.');
  });

  it('the customer look-up says a decision is queued, then gives its place in the log and a receipt that verifies offline', async () => {
    const id = await decide('log-customer');
    const queued = await pageA.get('/backoffice/customers?customer_id=log-customer');
    expect(textOf(queued.body)).toContain('queued');
    const early = await pageA.get(`/backoffice/decisions/${id}/receipt`);
    expect(early.statusCode).toBe(202);
    expect(textOf(early.body)).toContain('Receipt not ready yet');

    expect((await appendNow(id)).statusCode).toBe(200);
    const logged = await pageA.get('/backoffice/customers?customer_id=log-customer');
    expect(logged.body).toContain(`href="/backoffice/decisions/${id}/receipt" download`);
    expect(textOf(logged.body)).toMatch(/#\d+ Receipt/);

    const download = await pageA.get(`/backoffice/decisions/${id}/receipt`);
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-disposition']).toBe(
      `attachment; filename="receipt-${id}.json"`,
    );
    const key = parseVerifierKey(testLogKeys.verifierKey);
    if (!key.ok) throw new Error(key.reason);
    const verified = verifyReceipt(JSON.parse(download.body), [key.value], registry.formats);
    expect(verified.ok && verified.value.record.decision_id).toBe(id);
    expect(verified.ok && verified.value.opened).toBe(true);
  });

  it("another tenant's user cannot download the receipt (404), and a malformed id is 404", async () => {
    const id = await decide('other-tenant-customer');
    await appendNow(id);
    const pageB = await signedIn(t.app, b.tenant.email);
    expect((await pageB.get(`/backoffice/decisions/${id}/receipt`)).statusCode).toBe(404);
    expect((await pageA.get('/backoffice/decisions/not-an-id/receipt')).statusCode).toBe(404);
    const logB = await pageB.get('/backoffice/log');
    expect(textOf(logB.body)).toContain('Nothing appended yet');
  });

  it('the log page shows the latest checkpoint; running the audit keeps and shows its result, and is in the audit log', async () => {
    await appendNow(await decide('audited-customer'));
    const before = await pageA.get('/backoffice/log');
    const state = await t.db
      .selectFrom('tlog_state')
      .selectAll()
      .where('log_id', '=', a.tenant.id)
      .executeTakeFirstOrThrow();
    expect(before.body).toContain(Buffer.from(state.root, 'hex').toString('base64'));
    expect(textOf(before.body)).toContain(`Decisions in the log ${state.size}`);

    const run = await pageA.post('/backoffice/log/audit', {});
    expect(run.statusCode).toBe(303);
    expect(run.headers.location).toBe('/backoffice/log?notice=audited');
    const after = await pageA.get('/backoffice/log?notice=audited');
    expect(textOf(after.body)).toContain('Audit finished.');
    expect(textOf(after.body)).toContain('no problem found');
    expect(textOf(after.body)).toContain(`by ${a.tenant.email}`);
    const entry = await t.db
      .selectFrom('audit_log')
      .selectAll()
      .where('tenant_id', '=', a.tenant.id)
      .where('action', '=', 'log.audited')
      .executeTakeFirstOrThrow();
    expect(JSON.parse(entry.details ?? '{}')).toMatchObject({ ok: true, findings: 0 });
  });

  it('after a decision row is changed in the store, the audit run from the page names it', async () => {
    const id = await decide('tampered-customer');
    await appendNow(id);
    await t.db.updateTable('decisions').set({ decision: 'reject' }).where('id', '=', id).execute();
    try {
      await pageA.get('/backoffice/log');
      await pageA.post('/backoffice/log/audit', {});
      const page = await pageA.get('/backoffice/log');
      expect(textOf(page.body)).toContain('1 problem found');
      expect(textOf(page.body)).toContain('record-differs-from-leaf');
    } finally {
      await t.db.updateTable('decisions').set({ decision: 'given' }).where('id', '=', id).execute();
    }
  });
});
