/**
 * The back-office's "Download evidence pack" on a customer's page, on both stores: a form posted
 * (the customer id stays out of every URL) that answers the same ZIP as the API, recorded in the
 * audit log by the customer's subject; another tenant's user gets no pack of the customer.
 */
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { parseVerifierKey, verifyReceipt } from '../../src/proof/index.js';
import { apiOf } from '../helpers/api.js';
import { json, subjectIdOf, type TestApp, testLogKeys } from '../helpers/app.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { type PageClient, signedIn, startBackofficeApp } from './support.js';

describe.each(stores)('downloading an evidence pack in the back-office on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let b: SeededTenant;
  let pageA: PageClient;
  let pageB: PageClient;
  const customer = 'jo.evidence+office@example.test';
  let decisionId: string;

  beforeAll(async () => {
    t = await startBackofficeApp(store, { LOG_INTEGRATE_INTERVAL_MS: '60000' });
    a = await seedTenant(t.db);
    b = await seedTenant(t.db);
    pageA = await signedIn(t.app, a.tenant.email);
    pageB = await signedIn(t.app, b.tenant.email);
    const code = await seedTemplate(t.db, a.tenant.id);
    const { consent_version_id } = await publish(t.db, a.tenant.id, code);
    const made = await apiOf(t.app, a.headers).decide(customer, consent_version_id, 'given');
    expect(made.statusCode, made.body).toBe(201);
    decisionId = json(made).data.decision_id;
  });
  afterAll(async () => {
    await t.close();
  });

  const lookUp = (page: PageClient) =>
    page.get(`/backoffice/customers?customer_id=${encodeURIComponent(customer)}`);

  it('the customer page posts the id in a form and answers the ZIP, recorded in the audit log without the customer id', async () => {
    const page = await lookUp(pageA);
    expect(page.body).toContain('action="/backoffice/customers/evidence"');
    expect(page.body).toContain('Download evidence pack');
    const response = await pageA.post('/backoffice/customers/evidence', { customer_id: customer });
    expect(response.statusCode, response.body.slice(0, 300)).toBe(200);
    expect(response.headers['content-type']).toBe('application/zip');
    expect(response.headers['content-disposition']).toMatch(/^attachment; filename=evidence-/);
    const files = unzipSync(response.rawPayload);
    const receipt = JSON.parse(
      Buffer.from(files[`records/decisions/${decisionId}.json`] ?? []).toString('utf8'),
    );
    const key = parseVerifierKey(testLogKeys.verifierKey);
    if (!key.ok) throw new Error(key.reason);
    expect(verifyReceipt(receipt, [key.value], registry.formats).ok).toBe(true);

    const subjectId = await subjectIdOf(t, a.tenant.id, customer);
    const audit = await t.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'customer.evidence_pack')
      .execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ tenant_id: a.tenant.id, target: subjectId });
    expect(JSON.parse(audit[0]?.details ?? '{}')).toMatchObject({ decisions: 1, versions: 1 });
    expect(JSON.stringify(audit)).not.toContain(customer);
  });

  it("another tenant's user gets no pack of the customer, only a notice", async () => {
    await lookUp(pageB);
    const response = await pageB.post('/backoffice/customers/evidence', { customer_id: customer });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/backoffice/customers?notice=no-evidence');
  });
});
