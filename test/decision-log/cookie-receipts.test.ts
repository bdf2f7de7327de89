/**
 * `GET /api/v1/cookie-decisions/{decision_id}/receipt`: a website visitor's choice, posted as the
 * banner posts it, proven in the tenant's log as a decision is, and checked offline by
 * `verifyReceipt` and by the `verify-receipt` command.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { eraseCookieVisitor } from '../../src/cookies/index.js';
import { parseVerifierKey, verifyReceipt } from '../../src/proof/index.js';
import { apiOf } from '../helpers/api.js';
import { expectErrorShape, json, startTestApp, type TestApp, testLogKeys } from '../helpers/app.js';
import { type PublishedSystem, seedPublishedSystem } from '../helpers/cookies.js';
import { entriesOfLog } from '../helpers/log-entries.js';
import { runCli, showResult } from '../helpers/process.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import {
  documentedCookieEvidence,
  documentedCookieLeaf,
  documentedSubject,
} from '../proof/documented.js';

const origin = 'https://www.bank.example';
const userAgent = 'CookieReceiptTest/1.0';

describe.each(stores)("a cookie decision's receipt on $name", (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let b: SeededTenant;
  let site: PublishedSystem;
  let systemId: string;
  let contentSha256: string;
  const dir = mkdtempSync(join(tmpdir(), 'cookie-receipts-'));

  beforeAll(async () => {
    // A long interval: the tests decide when leaves are appended (`?wait=true` runs a pass).
    t = await startTestApp(store, { LOG_INTEGRATE_INTERVAL_MS: '60000' });
    a = await seedTenant(t.db);
    b = await seedTenant(t.db);
    site = await seedPublishedSystem(t.db, a.tenant.id, { categories: ['analytics', 'marketing'] });
    ({ id: systemId } = await t.db
      .selectFrom('cookie_systems')
      .select('id')
      .where('scope', '=', site.scope)
      .executeTakeFirstOrThrow());
    ({ content_sha256: contentSha256 } = await t.db
      .selectFrom('cookie_configurations')
      .select('content_sha256')
      .where('id', '=', site.configurationId)
      .executeTakeFirstOrThrow());
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const get = (url: string, headers = a.headers) => t.app.inject({ method: 'GET', url, headers });

  /** A visitor's choice posted as the banner posts it: its id and time. */
  async function choose(visitorId: string, categories = { analytics: false, marketing: true }) {
    const response = await t.app.inject({
      method: 'POST',
      url: `/cookies/v1/${site.scope}/decisions`,
      headers: { origin, 'content-type': 'text/plain;charset=UTF-8', 'user-agent': userAgent },
      remoteAddress: '203.0.113.77',
      payload: JSON.stringify({
        event_id: randomUUID(),
        visitor_id: visitorId,
        configuration_id: site.configurationId,
        configuration_version: site.version,
        method: 'custom',
        categories: { necessary: true, ...categories },
        locale: 'th',
      }),
    });
    expect(response.statusCode, response.body).toBe(201);
    return json(response).data as { decision_id: string; decided_at: string };
  }

  const verifier = () => {
    const key = parseVerifierKey(testLogKeys.verifierKey);
    if (!key.ok) throw new Error(key.reason);
    return key.value;
  };

  it('is 202 with Retry-After while the leaf waits, like a decision’s', async () => {
    const { decision_id: id } = await choose(randomUUID());
    const early = await get(`/api/v1/cookie-decisions/${id}/receipt`);
    expect(early.statusCode, early.body).toBe(202);
    expect(early.headers['retry-after']).toBe('1');
    expect(json(early).data).toEqual({ decision_id: id, status: 'queued' });
  });

  it('states the choice, carries the documented leaf and its opening, and verifies offline with the verifier key alone', async () => {
    const visitorId = randomUUID();
    const { decision_id: id, decided_at: decidedAt } = await choose(visitorId);
    const response = await get(`/api/v1/cookie-decisions/${id}/receipt?wait=true`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const receipt = json(response).data;
    expect(receipt.cookie_decision).toEqual({
      decision_id: id,
      system_id: systemId,
      configuration_id: site.configurationId,
      configuration_version: site.version,
      content_sha256: contentSha256,
      method: 'custom',
      categories: { necessary: true, analytics: false, marketing: true },
      decided_at: decidedAt,
      visitor_id: visitorId,
    });
    expect(receipt.opening).toEqual({
      visitor_id: visitorId,
      subject_salt: expect.any(String),
      evidence_salt: expect.any(String),
      // The tenant's default keeps the address's network only.
      ip: '203.0.113.0',
      user_agent: userAgent,
      origin,
      locale: 'th',
    });
    // The leaf as docs/proof.md writes it, from the choice and the receipt's salts.
    expect(receipt.leaf).toBe(
      documentedCookieLeaf({
        record: id,
        time: decidedAt,
        configurationId: site.configurationId,
        version: site.version,
        contentSha256,
        method: 'custom',
        categories: 'analytics=0 marketing=1 necessary=1',
        visitor: documentedSubject(receipt.opening.subject_salt, visitorId),
        evidence: documentedCookieEvidence(
          receipt.opening.evidence_salt,
          '203.0.113.0',
          'th',
          origin,
          userAgent,
        ),
      }),
    );
    // No personal data in clear in the leaf.
    for (const value of [visitorId, '203.0.113', userAgent, origin]) {
      expect(receipt.leaf).not.toContain(value);
    }
    expect(receipt.verifier_key).toBe(testLogKeys.verifierKey);

    const verified = verifyReceipt({ data: receipt }, [verifier()], registry.formats);
    expect(verified).toMatchObject({
      ok: true,
      value: {
        kind: 'cookie-decision',
        opened: true,
        leafIndex: receipt.leaf_index,
        checkpoint: { origin: `consent.test/consent-log/${a.tenant.id}`, size: receipt.tree_size },
      },
    });
    // Another visitor id does not open it.
    const claimed = { ...receipt, opening: { ...receipt.opening, visitor_id: randomUUID() } };
    expect(verifyReceipt(claimed, [verifier()], registry.formats)).toEqual({
      ok: false,
      reason: "the visitor id and salt do not open the leaf's visitor commitment",
    });
  });

  it('sits in one log with the tenant’s decisions, each receipt of its own kind', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const version = await publish(t.db, a.tenant.id, code);
    const decided = await apiOf(t.app, a.headers).decide(
      'c-beside',
      version.consent_version_id,
      'given',
    );
    expect(decided.statusCode, decided.body).toBe(201);
    const decisionId = json(decided).data.decision_id;
    const { decision_id: cookieId } = await choose(randomUUID());
    const cookie = json(await get(`/api/v1/cookie-decisions/${cookieId}/receipt?wait=true`)).data;
    const decision = json(await get(`/api/v1/decisions/${decisionId}/receipt?wait=true`)).data;
    expect(verifyReceipt(cookie, [verifier()], registry.formats)).toMatchObject({
      ok: true,
      value: { kind: 'cookie-decision' },
    });
    expect(verifyReceipt(decision, [verifier()], registry.formats)).toMatchObject({
      ok: true,
      value: { kind: 'decision' },
    });
    // Each id answers at its own endpoint only.
    expect((await get(`/api/v1/decisions/${cookieId}/receipt`)).statusCode).toBe(404);
    expect((await get(`/api/v1/cookie-decisions/${decisionId}/receipt`)).statusCode).toBe(404);
  });

  it("another tenant's cookie decision is 404 1004 here, an unknown one 404 1004, a malformed id 400 1001, no key 401", async () => {
    const { decision_id: id } = await choose(randomUUID());
    const other = await get(`/api/v1/cookie-decisions/${id}/receipt`, b.headers);
    expect(other.statusCode).toBe(404);
    expect(expectErrorShape(other).code).toBe('1004');
    const unknown = await get(
      '/api/v1/cookie-decisions/0190e8a0-0000-7000-8000-000000000000/receipt',
    );
    expect(unknown.statusCode).toBe(404);
    expect(expectErrorShape(unknown).code).toBe('1004');
    const malformed = await get('/api/v1/cookie-decisions/not-a-uuid/receipt');
    expect(malformed.statusCode).toBe(400);
    expect(expectErrorShape(malformed).code).toBe('1001');
    const noKey = await t.app.inject({
      method: 'GET',
      url: `/api/v1/cookie-decisions/${id}/receipt`,
    });
    expect(noKey.statusCode).toBe(401);
  });

  it('once the visitor was erased, the receipt has no opening nor visitor id, and still verifies', async () => {
    const visitorId = randomUUID();
    const { decision_id: id } = await choose(visitorId);
    const before = json(await get(`/api/v1/cookie-decisions/${id}/receipt?wait=true`)).data;
    // Crypto-shredding (docs/erasure.md): the key, salt and look-up go.
    const by = { actorKind: 'operator', actor: 'test', ip: '127.0.0.1', userAgent: null } as const;
    expect(
      await eraseCookieVisitor(t.db, t.vault, registry, a.tenant.id, visitorId, by),
    ).toMatchObject({ erased: true, cookie_decisions: 1 });
    const after = json(await get(`/api/v1/cookie-decisions/${id}/receipt`)).data;
    expect(after.opening).toBeNull();
    expect(after.cookie_decision.visitor_id).toBeNull();
    expect(after.leaf).toBe(before.leaf);
    expect(verifyReceipt(after, [verifier()], registry.formats)).toMatchObject({
      ok: true,
      value: { kind: 'cookie-decision', opened: false },
    });
  });

  it('verify-receipt accepts the receipt file and prints the choice; it refuses one with a category changed', async () => {
    const { decision_id: id, decided_at: decidedAt } = await choose(randomUUID(), {
      analytics: true,
      marketing: false,
    });
    const body = json(await get(`/api/v1/cookie-decisions/${id}/receipt?wait=true`));
    const row = await t.db
      .selectFrom('publications')
      .select(['id', 'published_at'])
      .where('tenant_id', '=', a.tenant.id)
      .where('of_id', '=', site.configurationId)
      .executeTakeFirstOrThrow();
    const entry = await entriesOfLog(t.db, a.tenant.id)
      .select('e.idx')
      .where('e.record_id', '=', row.id)
      .executeTakeFirstOrThrow();
    const published = { ...row, index: Number(entry.idx) };
    const file = join(dir, `receipt-${store.name}.json`);
    writeFileSync(file, JSON.stringify(body));
    const result = await runCli(['verify-receipt', file, '--key', testLogKeys.verifierKey], {});
    expect(result.code, showResult(result)).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      valid: true,
      kind: 'cookie-decision',
      origin: `consent.test/consent-log/${a.tenant.id}`,
      tree_size: body.data.tree_size,
      leaf_index: body.data.leaf_index,
      opened: true,
      record: {
        decision_id: id,
        decided_at: decidedAt,
        configuration_id: site.configurationId,
        configuration_version: site.version,
        content_sha256: contentSha256,
        method: 'custom',
        categories: { analytics: true, marketing: false, necessary: true },
      },
      // The configuration's publication, logged before the choice: its one text is the content
      // whose SHA-256 the choice commits to.
      published: {
        publication_id: published.id,
        leaf_index: published.index,
        published_at: published.published_at,
        effective_at: published.published_at,
        what: 'configuration',
        of: site.configurationId,
        version: site.version,
        text: { locale: '*', id: site.configurationId, sha256: contentSha256 },
      },
    });

    const tampered = structuredClone(body);
    tampered.data.cookie_decision.categories.marketing = true;
    const tamperedFile = join(dir, `tampered-${store.name}.json`);
    writeFileSync(tamperedFile, JSON.stringify(tampered));
    const refused = await runCli(
      ['verify-receipt', tamperedFile, '--key', testLogKeys.verifierKey],
      {},
    );
    expect(refused.code, showResult(refused)).toBe(1);
    expect(refused.stderr).toBe(
      "The receipt does not verify: the receipt's categories is not the one in the log\n",
    );

    // A publication leaf with a byte changed is not the one in the log.
    const otherText = structuredClone(body);
    otherText.data.publication.leaf = body.data.publication.leaf.replace('text * ', 'text en ');
    const otherFile = join(dir, `other-publication-${store.name}.json`);
    writeFileSync(otherFile, JSON.stringify(otherText));
    const unlinked = await runCli(
      ['verify-receipt', otherFile, '--key', testLogKeys.verifierKey],
      {},
    );
    expect(unlinked.code, showResult(unlinked)).toBe(1);
    expect(unlinked.stderr).toBe(
      "The receipt does not verify: the receipt's publication is not in the log under the receipt's checkpoint\n",
    );
  });

  it('is in the OpenAPI document with the errors a decision’s receipt lists', async () => {
    const doc = json(await t.app.inject({ method: 'GET', url: '/api/docs/json' }));
    const operation = doc.paths['/api/v1/cookie-decisions/{decision_id}/receipt'].get;
    expect(operation.operationId).toBe('getCookieDecisionReceipt');
    const decisionOperation = doc.paths['/api/v1/decisions/{decision_id}/receipt'].get;
    expect(Object.keys(operation.responses).sort()).toEqual(
      Object.keys(decisionOperation.responses).sort(),
    );
    const data = operation.responses['200'].content['application/json'].schema.properties.data;
    expect(Object.keys(data.properties)).toEqual([
      'cookie_decision',
      'leaf',
      'leaf_index',
      'tree_size',
      'inclusion_proof',
      'checkpoint',
      'tlog_proof',
      'verifier_key',
      'cosigned_checkpoint',
      'timestamp',
      'publication',
      'opening',
    ]);
  });
});
