import { createHash } from 'node:crypto';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { auditLog } from '../../src/decision-log/audit.js';
import { parseVerifierKey, verifyEvidencePack, verifyReceipt } from '../../src/proof/index.js';
import { apiOf } from '../helpers/api.js';
import { json, startTestApp, type TestApp, testLogKeys } from '../helpers/app.js';
import { asBefore0059 } from '../helpers/schema-history.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { existingStore } from '../helpers/uuid-ids.js';

// The SHA-256 of the text a customer was shown is its version's: every read of a decision takes
// it from the version, and the decision's row keeps no copy (migration 0059 made the column
// nullable; nothing writes it).

const content = '<p>The text this customer was shown, version 1.</p>';
const shown = createHash('sha256').update(content).digest('hex');

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
  });
  afterAll(async () => {
    await t.close();
  });

  function get(url: string) {
    return t.app.inject({ method: 'GET', url, headers: a.headers });
  }

  const verifier = () => {
    const key = parseVerifierKey(testLogKeys.verifierKey);
    if (!key.ok) throw new Error(key.reason);
    return key.value;
  };

  it("the decision's row keeps no copy of the hash", async () => {
    const row = await t.db
      .selectFrom('decisions')
      .selectAll()
      .where('tenant_id', '=', a.tenant.id)
      .executeTakeFirstOrThrow();
    expect((row as Record<string, unknown>).content_sha256).toBeNull();
  });

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

describe.each(stores)('migration 0059 on $name, with decisions in the store', (store) => {
  it("makes the decisions' copy of the hash optional; the same reads answer the same bytes, the receipts are of the same leaves and verify, the audit is clean", async () => {
    const created = await (store.createMigrated ? store.createMigrated() : store.create());
    const old = await startTestApp(existingStore(created.databaseUrl, undefined, store.name));
    const a = await seedTenant(old.db);
    const code = await seedTemplate(old.db, a.tenant.id);
    const version = await publish(old.db, a.tenant.id, code, { content_html: content });
    const api = apiOf(old.app, a.headers);
    const customers = ['first@example.test', 'second@example.test'];
    const urls: string[] = [];
    for (const customer of customers) {
      for (const decision of ['given', 'withdraw'] as const) {
        const decided = await api.decide(customer, version.consent_version_id, decision);
        expect(decided.statusCode, decided.body).toBe(201);
        urls.push(`/api/v1/decisions/${json(decided).data.decision_id}/receipt?wait=true`);
      }
      urls.push(`/api/v1/customers/${encodeURIComponent(customer)}/consents`);
    }
    const answers = async (t: TestApp) => {
      const bodies: unknown[] = [];
      for (const url of urls) {
        const response = await t.app.inject({ method: 'GET', url, headers: a.headers });
        expect(response.statusCode, response.body).toBe(200);
        const { data } = json(response);
        // A receipt's proof is of the log's size at the time of asking; its leaf is the record.
        bodies.push(url.endsWith('/receipt?wait=true') ? data.leaf : data);
      }
      return bodies;
    };
    const before = await answers(old);
    expect(
      before.filter((b) => typeof b === 'string' && b.includes(` sha256:${shown}\n`)),
    ).toHaveLength(4);
    // The store as 0.7.0 left it: the column required, written with the version's hash (and
    // the migration after it taken back too).
    await asBefore0059(old.db);
    await old.close();

    const next = await startTestApp(existingStore(created.databaseUrl, created.drop, store.name));
    try {
      const tables = await next.db.introspection.getTables();
      const column = tables
        .find((table) => table.name === 'decisions')
        ?.columns.find((c) => c.name === 'content_sha256');
      expect(column?.isNullable).toBe(true);
      expect(await answers(next)).toEqual(before);
      const key = parseVerifierKey(testLogKeys.verifierKey);
      if (!key.ok) throw new Error(key.reason);
      for (const url of urls.filter((u) => u.endsWith('/receipt?wait=true'))) {
        const receipt = await next.app.inject({ method: 'GET', url, headers: a.headers });
        expect(verifyReceipt(json(receipt).data, [key.value], registry.formats).ok).toBe(true);
      }
      expect(await auditLog(next.db, next.vault, registry, a.tenant.id)).toMatchObject({
        ok: true,
        findings: [],
      });
    } finally {
      await next.close();
    }
  });
});
