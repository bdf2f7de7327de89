import { createHash } from 'node:crypto';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { auditLog } from '../../src/decision-log/audit.js';
import { parseVerifierKey, verifyEvidencePack, verifyReceipt } from '../../src/proof/index.js';
import { apiOf } from '../helpers/api.js';
import { json, startTestApp, type TestApp, testLogKeys } from '../helpers/app.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';

// The SHA-256 of the text a customer was shown is its version's: every read of a decision takes
// it from the version, never from a copy on the decision's row. The rows' copies are overwritten
// here with a hash of nothing shown; every answer must still give the text's own.

const content = '<p>The text this customer was shown, version 1.</p>';
const shown = createHash('sha256').update(content).digest('hex');
const wrong = '0'.repeat(64);

describe.each(stores)("a decision's content hash, read from its version, on $name", (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let code: string;
  let decisionId: string;
  const customer = 'hash.reader@example.test';

  beforeAll(async () => {
    t = await startTestApp(store);
    a = await seedTenant(t.db);
    code = await seedTemplate(t.db, a.tenant.id);
    const version = await publish(t.db, a.tenant.id, code, { content_html: content });
    const decided = await apiOf(t.app, a.headers).decide(
      customer,
      version.consent_version_id,
      'given',
    );
    expect(decided.statusCode, decided.body).toBe(201);
    decisionId = json(decided).data.decision_id;
    // Logged before the copy is spoilt: the leaf holds the hash the customer was shown.
    const receipt = await get(`/api/v1/decisions/${decisionId}/receipt?wait=true`);
    expect(receipt.statusCode, receipt.body).toBe(200);
    if (await holdsCopy()) {
      await t.db
        .updateTable('decisions')
        .set({ content_sha256: wrong })
        .where('tenant_id', '=', a.tenant.id)
        .execute();
    }
  });
  afterAll(async () => {
    await t.close();
  });

  function get(url: string) {
    return t.app.inject({ method: 'GET', url, headers: a.headers });
  }

  async function holdsCopy(): Promise<boolean> {
    const row = await t.db
      .selectFrom('decisions')
      .selectAll()
      .where('tenant_id', '=', a.tenant.id)
      .executeTakeFirstOrThrow();
    return 'content_sha256' in row;
  }

  const verifier = () => {
    const key = parseVerifierKey(testLogKeys.verifierKey);
    if (!key.ok) throw new Error(key.reason);
    return key.value;
  };

  it("the customer's history and the decision as of now give the text's hash", async () => {
    const history = await get(`/api/v1/customers/${encodeURIComponent(customer)}/consents`);
    expect(history.statusCode, history.body).toBe(200);
    expect(json(history).data.history).toEqual([
      expect.objectContaining({ decision_id: decisionId, content_sha256: shown }),
    ]);
    const asOf = await get(
      `/api/v1/customers/${encodeURIComponent(customer)}/consents/templates/${code}/as-of?at=${encodeURIComponent(new Date().toISOString())}`,
    );
    expect(asOf.statusCode, asOf.body).toBe(200);
    expect(json(asOf).data.decision).toMatchObject({
      decision_id: decisionId,
      content_sha256: shown,
    });
  });

  it('the receipt served again gives it in the leaf it rebuilds, and verifies', async () => {
    const receipt = await get(`/api/v1/decisions/${decisionId}/receipt?wait=true`);
    expect(receipt.statusCode, receipt.body).toBe(200);
    const body = json(receipt).data;
    expect(body.leaf).toContain(` sha256:${shown}\n`);
    expect(verifyReceipt(body, [verifier()], registry.formats)).toMatchObject({ ok: true });
  });

  it('the evidence pack verifies, its record giving the text of the hash', async () => {
    const response = await get(`/api/v1/customers/${encodeURIComponent(customer)}/evidence`);
    expect(response.statusCode, response.body).toBe(200);
    const files = unzipSync(response.rawPayload);
    expect(
      verifyEvidencePack(new Map(Object.entries(files)), [verifier()], registry.formats),
    ).toMatchObject({ valid: true, failures: [] });
    const record = JSON.parse(
      Buffer.from(files[`records/decisions/${decisionId}.json`] ?? []).toString('utf8'),
    );
    expect(record.leaf).toContain(` sha256:${shown}\n`);
    expect(files[`versions/${record.decision.consent_version_id}/content.html`]).toEqual(
      new Uint8Array(Buffer.from(content)),
    );
  });

  it("the log's audit recomputes the decision's leaf: clean", async () => {
    expect(await auditLog(t.db, t.vault, registry, a.tenant.id)).toMatchObject({
      ok: true,
      findings: [],
    });
  });
});
