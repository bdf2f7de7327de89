import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { auditLog } from '../../src/decision-log/audit.js';
import { parseVerifierKey, verifyReceipt } from '../../src/proof/index.js';
import { json, startTestApp, type TestApp, testLogKeys } from '../helpers/app.js';
import { type PublishedSystem, seedPublishedSystem } from '../helpers/cookies.js';
import { asBefore0060 } from '../helpers/schema-history.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { existingStore } from '../helpers/uuid-ids.js';

// The SHA-256 of the configuration a visitor chose on is the configuration's: every read of a
// choice takes it from the configuration, and the choice's row keeps no copy (migration 0060).
// A copy is put there with a hash of nothing shown; the receipt and the audit must still give
// the configuration's own.

const origin = 'https://www.bank.example';

/** A new visitor's choice posted as the banner posts it: its id. */
async function choose(t: TestApp, site: PublishedSystem, analytics: boolean): Promise<string> {
  const response = await t.app.inject({
    method: 'POST',
    url: `/cookies/v1/${site.scope}/decisions`,
    headers: { origin, 'content-type': 'text/plain;charset=UTF-8' },
    payload: JSON.stringify({
      event_id: randomUUID(),
      visitor_id: randomUUID(),
      configuration_id: site.configurationId,
      configuration_version: site.version,
      method: 'custom',
      categories: { necessary: true, analytics },
      locale: 'en',
    }),
  });
  expect(response.statusCode, response.body).toBe(201);
  return json(response).data.decision_id;
}

describe.each(stores)(
  "a cookie choice's content hash, read from its configuration, on $name",
  (store) => {
    let t: TestApp;
    let a: SeededTenant;
    let site: PublishedSystem;
    let shown: string;
    let choiceId: string;
    const receiptUrl = () => `/api/v1/cookie-decisions/${choiceId}/receipt?wait=true`;

    beforeAll(async () => {
      t = await startTestApp(store);
      a = await seedTenant(t.db);
      site = await seedPublishedSystem(t.db, a.tenant.id, { categories: ['analytics'] });
      ({ content_sha256: shown } = await t.db
        .selectFrom('cookie_configurations')
        .select('content_sha256')
        .where('id', '=', site.configurationId)
        .executeTakeFirstOrThrow());
      choiceId = await choose(t, site, true);
      const receipt = await get(receiptUrl());
      expect(receipt.statusCode, receipt.body).toBe(200);
      // The row keeps no copy (migration 0060); one put there, as a release before wrote it, or
      // a wrong one, is read by nothing.
      const { rows } = await sql<{ content_sha256: string | null }>`select content_sha256
        from cookie_decisions where tenant_id = ${a.tenant.id}`.execute(t.db);
      expect(rows).toEqual([{ content_sha256: null }]);
      await sql`update cookie_decisions set content_sha256 = ${'0'.repeat(64)}
      where tenant_id = ${a.tenant.id}`.execute(t.db);
    });
    afterAll(async () => {
      await t.close();
    });

    function get(url: string) {
      return t.app.inject({ method: 'GET', url, headers: a.headers });
    }

    it('the receipt served again gives it, in the choice and in the leaf it rebuilds, and verifies', async () => {
      const receipt = await get(receiptUrl());
      expect(receipt.statusCode, receipt.body).toBe(200);
      const body = json(receipt).data;
      expect(body.cookie_decision.content_sha256).toBe(shown);
      expect(body.leaf).toContain(` sha256:${shown}\n`);
      const key = parseVerifierKey(testLogKeys.verifierKey);
      if (!key.ok) throw new Error(key.reason);
      expect(verifyReceipt(body, [key.value], registry.formats)).toMatchObject({ ok: true });
    });

    it("the log's audit recomputes the choice's leaf: clean", async () => {
      expect(await auditLog(t.db, t.vault, registry, a.tenant.id)).toMatchObject({
        ok: true,
        findings: [],
      });
    });
  },
);

describe.each(stores)('migration 0060 on $name, with cookie choices in the store', (store) => {
  it("makes the choices' copy of the hash optional; their receipts are of the same leaves and verify, the audit is clean", async () => {
    const created = await (store.createMigrated ? store.createMigrated() : store.create());
    const old = await startTestApp(existingStore(created.databaseUrl, undefined, store.name));
    const a = await seedTenant(old.db);
    const site = await seedPublishedSystem(old.db, a.tenant.id, { categories: ['analytics'] });
    const urls: string[] = [];
    for (const analytics of [true, false]) {
      urls.push(`/api/v1/cookie-decisions/${await choose(old, site, analytics)}/receipt?wait=true`);
    }
    type Receipt = { cookie_decision: unknown; leaf: string; [field: string]: unknown };
    const receipts = async (t: TestApp) => {
      const bodies: Receipt[] = [];
      for (const url of urls) {
        const response = await t.app.inject({ method: 'GET', url, headers: a.headers });
        expect(response.statusCode, response.body).toBe(200);
        bodies.push(json(response).data);
      }
      return bodies;
    };
    // A receipt's proof is of the log's size at the time of asking; the choice and its leaf are
    // the record.
    const records = (bodies: Receipt[]) =>
      bodies.map(({ cookie_decision, leaf }) => ({ cookie_decision, leaf }));
    const before = records(await receipts(old));
    // The store as 0.8.0 left it: the column required, written with the configuration's hash.
    await asBefore0060(old.db);
    await old.close();

    const next = await startTestApp(existingStore(created.databaseUrl, created.drop, store.name));
    try {
      const tables = await next.db.introspection.getTables();
      const column = tables
        .find((table) => table.name === 'cookie_decisions')
        ?.columns.find((c) => c.name === 'content_sha256');
      expect(column?.isNullable).toBe(true);
      const after = await receipts(next);
      expect(records(after)).toEqual(before);
      const key = parseVerifierKey(testLogKeys.verifierKey);
      if (!key.ok) throw new Error(key.reason);
      for (const body of after) {
        expect(verifyReceipt(body as never, [key.value], registry.formats).ok).toBe(true);
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
