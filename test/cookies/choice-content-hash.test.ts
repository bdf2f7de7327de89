import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { auditLog } from '../../src/decision-log/audit.js';
import { parseVerifierKey, verifyReceipt } from '../../src/proof/index.js';
import { json, startTestApp, type TestApp, testLogKeys } from '../helpers/app.js';
import { type PublishedSystem, seedPublishedSystem } from '../helpers/cookies.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';

// The SHA-256 of the configuration a visitor chose on is the configuration's: every read of a
// choice takes it from the configuration, never from the copy on the choice's row. The rows'
// copies are overwritten here with a hash of nothing shown; the receipt and the audit must
// still give the configuration's own.

const origin = 'https://www.bank.example';

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
          categories: { necessary: true, analytics: true },
          locale: 'en',
        }),
      });
      expect(response.statusCode, response.body).toBe(201);
      choiceId = json(response).data.decision_id;
      // Logged before the copy is spoilt: the leaf holds the hash the visitor was shown.
      const receipt = await get(receiptUrl());
      expect(receipt.statusCode, receipt.body).toBe(200);
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
