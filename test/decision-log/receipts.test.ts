import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  openCheckpoint,
  parseVerifierKey,
  verifyConsistency,
  verifyInclusion,
  verifyTlogProof,
} from '../../src/proof/index.js';
import { apiOf } from '../helpers/api.js';
import { expectErrorShape, json, startTestApp, type TestApp, testLogKeys } from '../helpers/app.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import {
  documentedEvidence,
  documentedLeaf,
  documentedLeafHash,
  documentedSubject,
} from '../proof/documented.js';

const b64 = (text: string) => new Uint8Array(Buffer.from(text, 'base64'));

describe.each(stores)('the decision log and receipts on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let b: SeededTenant;
  let versionId: string;
  let templateId: string;
  // SHA-256 (hex) of the version's text, '<p>Consent text</p>'.
  const contentSha256 = 'e29b7d2e22b31f02ce9c520c6a8a70c0d2749340a1b15e11e9614e8a384f954f';

  beforeAll(async () => {
    // A long interval: the tests decide when leaves are appended (`?wait=true` runs a pass).
    t = await startTestApp(store, { LOG_INTEGRATE_INTERVAL_MS: '60000' });
    a = await seedTenant(t.db);
    b = await seedTenant(t.db);
    const code = await seedTemplate(t.db, a.tenant.id);
    const version = await publish(t.db, a.tenant.id, code, {
      content_html: '<p>Consent text</p>',
    });
    versionId = version.consent_version_id;
    const row = await t.db
      .selectFrom('template_versions')
      .select('template_id')
      .where('id', '=', versionId)
      .executeTakeFirstOrThrow();
    templateId = row.template_id;
  });
  afterAll(async () => {
    await t.close();
  });

  const get = (url: string, headers = a.headers) =>
    t.app.inject({ method: 'GET', url, headers: { ...headers, 'user-agent': 'LogTest/1.0' } });

  async function decide(customer: string, decision = 'given'): Promise<string> {
    const response = await apiOf(t.app, { ...a.headers, 'user-agent': 'LogTest/1.0' }).decide(
      customer,
      versionId,
      decision,
    );
    expect(response.statusCode, response.body).toBe(201);
    return json(response).data.decision_id;
  }

  const verifier = () => {
    const key = parseVerifierKey(testLogKeys.verifierKey);
    if (!key.ok) throw new Error(key.reason);
    return key.value;
  };

  it('a decision is queued in its own transaction; its receipt is 202 with Retry-After until appended', async () => {
    const id = await decide('queued-customer');
    const queued = await t.db
      .selectFrom('tlog_pending')
      .select('leaf')
      .where('record_id', '=', id)
      .executeTakeFirst();
    // As its hash alone: 64 hex digits.
    expect(queued?.leaf).toMatch(/^[0-9a-f]{64}$/);
    const early = await get(`/api/v1/decisions/${id}/receipt`);
    expect(early.statusCode).toBe(202);
    expect(early.headers['retry-after']).toBe('1');
    expect(json(early).data).toEqual({ decision_id: id, status: 'queued' });
  });

  it('a receipt verifies offline with the verifier key alone, and opens to the decision and its evidence', async () => {
    const id = await decide('alice@example.test');
    const response = await get(`/api/v1/decisions/${id}/receipt?wait=true`);
    expect(response.statusCode, response.body).toBe(200);
    const receipt = json(response).data;
    expect(receipt.decision).toMatchObject({ decision_id: id, decision: 'given', version: 1 });
    expect(receipt.verifier_key).toBe(testLogKeys.verifierKey);

    const verified = verifyTlogProof(receipt.tlog_proof, [verifier()]);
    if (!verified.ok) throw new Error(verified.reason);
    expect(Buffer.from(verified.value.leaf).toString('utf8')).toBe(receipt.leaf);
    expect(verified.value.index).toBe(receipt.leaf_index);
    expect(verified.value.checkpoint.origin).toBe(`consent.test/consent-log/${a.tenant.id}`);

    // The leaf as docs/proof.md writes it, from the decision and the receipt's opening.
    expect(receipt.leaf).toBe(
      documentedLeaf({
        record: id,
        time: receipt.decision.decided_at,
        templateId,
        version: 1,
        contentSha256,
        decision: 'given',
        subject: documentedSubject(receipt.opening.subject_salt, 'alice@example.test'),
        evidence: documentedEvidence(
          receipt.opening.evidence_salt,
          a.apiKey.id,
          '127.0.0.1',
          'LogTest/1.0',
        ),
      }),
    );
    expect(receipt.opening).toMatchObject({
      customer_id: 'alice@example.test',
      ip: '127.0.0.1',
      user_agent: 'LogTest/1.0',
      api_key_id: a.apiKey.id,
    });
    // No personal data in clear in the leaf.
    expect(receipt.leaf).not.toContain('alice');
    expect(receipt.leaf).not.toContain('127.0.0.1');
    expect(receipt.leaf).not.toContain('LogTest');

    // The same proof as JSON fields.
    expect(
      verifyInclusion(
        documentedLeafHash(receipt.leaf),
        receipt.leaf_index,
        receipt.tree_size,
        receipt.inclusion_proof.map(b64),
        openedRoot(receipt.checkpoint),
      ),
    ).toBe(true);
  });

  function openedRoot(note: string): Uint8Array {
    const opened = openCheckpoint(note, [verifier()]);
    if (!opened.ok) throw new Error(opened.reason);
    return opened.value.checkpoint.rootHash;
  }

  it('every receipt of many decisions verifies, and each checkpoint is consistent with the next', async () => {
    const before = json(await get('/api/v1/log/checkpoint')).data;
    const ids: string[] = [];
    for (let i = 0; i < 23; i += 1)
      ids.push(await decide(`many-${i}`, i % 3 === 0 ? 'reject' : 'given'));
    const receipts = [];
    for (const id of ids) {
      const response = await get(`/api/v1/decisions/${id}/receipt?wait=true`);
      expect(response.statusCode).toBe(200);
      receipts.push(json(response).data);
    }
    for (const receipt of receipts) {
      const verified = verifyTlogProof(receipt.tlog_proof, [verifier()]);
      expect(verified.ok, verified.ok ? '' : verified.reason).toBe(true);
    }
    const after = json(await get('/api/v1/log/checkpoint')).data;
    expect(after.size).toBeGreaterThanOrEqual(before.size + ids.length);
    expect(openedRoot(after.checkpoint)).toEqual(b64(after.root_hash));
    const proof = await get(`/api/v1/log/consistency?from=${before.size}&to=${after.size}`);
    expect(proof.statusCode, proof.body).toBe(200);
    expect(
      verifyConsistency(
        before.size,
        after.size,
        json(proof).data.proof.map(b64),
        b64(before.root_hash),
        b64(after.root_hash),
      ),
    ).toBe(true);
    // A changed old root no longer fits.
    const forged = b64(before.root_hash);
    forged[0] = (forged[0] ?? 0) ^ 1;
    expect(
      verifyConsistency(
        before.size,
        after.size,
        json(proof).data.proof.map(b64),
        forged,
        b64(after.root_hash),
      ),
    ).toBe(false);
  });

  it('the key endpoint publishes the verifier key and origin; a tenant with no decision has a signed empty checkpoint', async () => {
    const key = json(await get('/api/v1/log/key')).data;
    expect(key).toEqual({
      key_name: 'consent.test/consent-log',
      verifier_key: testLogKeys.verifierKey,
      origin: `consent.test/consent-log/${a.tenant.id}`,
    });
    const empty = json(await get('/api/v1/log/checkpoint', b.headers)).data;
    expect(empty.size).toBe(0);
    expect(empty.origin).toBe(`consent.test/consent-log/${b.tenant.id}`);
    const opened = openCheckpoint(empty.checkpoint, [verifier()]);
    expect(opened.ok).toBe(true);
  });

  it("another tenant's decision has no receipt here (404), an unknown one 404, a malformed id 400", async () => {
    const id = await decide('private-customer');
    const other = await get(`/api/v1/decisions/${id}/receipt`, b.headers);
    expect(other.statusCode).toBe(404);
    expect(expectErrorShape(other).code).toBe('1004');
    const unknown = await get('/api/v1/decisions/0190e8a0-0000-7000-8000-000000000000/receipt');
    expect(unknown.statusCode).toBe(404);
    const malformed = await get('/api/v1/decisions/not-a-uuid/receipt');
    expect(malformed.statusCode).toBe(400);
    expect(expectErrorShape(malformed).code).toBe('1001');
    const noKey = await t.app.inject({ method: 'GET', url: `/api/v1/decisions/${id}/receipt` });
    expect(noKey.statusCode).toBe(401);
  });

  it.each([
    ['from=0&to=1'],
    ['from=2&to=1'],
    ['from=1&to=999999'],
    ['from=1'],
    ['from=x&to=2'],
    ['from=1&to=2&extra=1'],
  ])('a consistency request %s answers 400 1001', async (query) => {
    const response = await get(`/api/v1/log/consistency?${query}`);
    expect(response.statusCode, response.body).toBe(400);
    expect(expectErrorShape(response).code).toBe('1001');
  });
});
