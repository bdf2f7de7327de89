/**
 * The leaf and commitment formats of docs/proof.md ("For an outside auditor: the formats"),
 * checked against bytes written out here. The expected values were computed from the document
 * alone, with node:crypto, for the fixed record below; the reference functions of documented.ts
 * follow the document too, and are held to the same literals before they judge a live decision.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { appendBatch } from '../../src/decision-log/append.js';
import { leafOfDecision } from '../../src/decisions/leaf.js';
import { leafOfErasure } from '../../src/erasure/leaf.js';
import { eraseCustomer } from '../../src/erasure/service.js';
import { evidenceCommitment, subjectCommitment } from '../../src/proof/commitments.js';
import { leafHash, parseSignerKey } from '../../src/proof/index.js';
import { apiOf } from '../helpers/api.js';
import { json, startTestApp, type TestApp, testLogKeys } from '../helpers/app.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import {
  documentedEvidence,
  documentedLeaf,
  documentedLeafHash,
  documentedNodeHash,
  documentedSubject,
} from './documented.js';

// The fixed record.
const subjectSalt = 'AAECAwQFBgcICQoLDA0ODw=='; // bytes 0x00 … 0x0f
const evidenceSalt = 'EBESExQVFhcYGRobHB0eHw=='; // bytes 0x10 … 0x1f
const record = {
  tenant_id: '0190e8a0-0000-7000-8000-0000000000cc',
  id: '0190e8a0-0000-7000-8000-000000000001',
  customer_id: 'c-1001',
  template_id: '0190e8a0-0000-7000-8000-0000000000bb',
  version: 3,
  // SHA-256 of '<p>Consent text</p>'
  content_sha256: 'e29b7d2e22b31f02ce9c520c6a8a70c0d2749340a1b15e11e9614e8a384f954f',
  decision: 'given' as const,
  decided_at: '2026-01-31T12:00:00.000Z',
  api_key_id: '0190e8a0-0000-7000-8000-0000000000aa',
  ip: '192.0.2.7',
  user_agent: 'Mozilla/5.0 (X11)',
  evidence_salt: evidenceSalt,
};

// What the document makes of it.
const subject = 'dwfli/StejKRbOA+KagblgRxmk9iNdOFOgwxVONP0o4=';
const evidence = 'aLZEWGmEX7BQhjUaExjyZ0/SrAcL3PJf1VBnmheGuNM=';
const evidenceWithoutUserAgent = 'haa0d/yU7hD885yzFUQ4gAbxXOrxH8Gh2aa0S6WDhkg=';
const leaf =
  'consent-log/leaf/v1\n' +
  'record 0190e8a0-0000-7000-8000-000000000001\n' +
  'time 2026-01-31T12:00:00.000Z\n' +
  'template 0190e8a0-0000-7000-8000-0000000000bb 3 sha256:e29b7d2e22b31f02ce9c520c6a8a70c0d2749340a1b15e11e9614e8a384f954f\n' +
  'decision given\n' +
  'subject dwfli/StejKRbOA+KagblgRxmk9iNdOFOgwxVONP0o4=\n' +
  'evidence aLZEWGmEX7BQhjUaExjyZ0/SrAcL3PJf1VBnmheGuNM=\n';
const leafHashHex = 'fbd01897fae42f8986d619a4922e8c796e1520c7d43cb2b90f477cfc4af6eaa5';
const tombstone =
  'consent-log/leaf/v1\n' +
  'record 0190e8a0-0000-7000-8000-000000000002\n' +
  'time 2026-02-01T08:30:00.000Z\n' +
  'template 0190e8a0-0000-7000-8000-0000000000bb 3 sha256:e29b7d2e22b31f02ce9c520c6a8a70c0d2749340a1b15e11e9614e8a384f954f\n' +
  'decision erased\n' +
  'subject dwfli/StejKRbOA+KagblgRxmk9iNdOFOgwxVONP0o4=\n' +
  'evidence -\n';
const tombstoneHashHex = 'd748ebe6d8b6fe9f09a49cdcfeddd54a9a60f9620932cb9d4d310887f16ebd0f';
// The root of the tree of the two: SHA-256(0x01 || leaf hash || tombstone hash).
const rootOfBothHex = '553dd7042eb87b4a974c7880b0df6e52d2ed98dc75fe898bf3b60da4014270fe';

describe('the documented leaf and commitment formats, for a fixed record', () => {
  it('the subject commitment of the record is the documented one', () => {
    expect(subjectCommitment(subjectSalt, 'c-1001')).toBe(subject);
  });

  it('the evidence commitment of the record is the documented one, with a user agent and without', () => {
    expect(
      evidenceCommitment(evidenceSalt, {
        apiKeyId: record.api_key_id,
        ip: record.ip,
        userAgent: record.user_agent,
      }),
    ).toBe(evidence);
    expect(
      evidenceCommitment(evidenceSalt, {
        apiKeyId: record.api_key_id,
        ip: record.ip,
        userAgent: null,
      }),
    ).toBe(evidenceWithoutUserAgent);
  });

  it('the leaf the service queues for the record is the documented text, and its leaf hash the documented one', () => {
    const queued = leafOfDecision(record, subjectSalt);
    expect(queued).toBe(leaf);
    expect(Buffer.from(leafHash(Buffer.from(queued, 'utf8'))).toString('hex')).toBe(leafHashHex);
  });

  it("the tombstone of the record's erasure is the documented text, with evidence -", () => {
    const erased = leafOfErasure(
      {
        id: '0190e8a0-0000-7000-8000-000000000002',
        template_id: record.template_id,
        version: 3,
        content_sha256: record.content_sha256,
        erased_at: '2026-02-01T08:30:00.000Z',
      },
      subject,
    );
    expect(erased).toBe(tombstone);
    expect(Buffer.from(leafHash(Buffer.from(erased, 'utf8'))).toString('hex')).toBe(
      tombstoneHashHex,
    );
  });

  it('the reference functions of documented.ts give the same literals (they judge the live decisions below)', () => {
    expect(documentedSubject(subjectSalt, 'c-1001')).toBe(subject);
    expect(documentedEvidence(evidenceSalt, record.api_key_id, record.ip, record.user_agent)).toBe(
      evidence,
    );
    expect(documentedEvidence(evidenceSalt, record.api_key_id, record.ip, null)).toBe(
      evidenceWithoutUserAgent,
    );
    expect(
      documentedLeaf({
        record: record.id,
        time: record.decided_at,
        templateId: record.template_id,
        version: 3,
        contentSha256: record.content_sha256,
        decision: 'given',
        subject,
        evidence,
      }),
    ).toBe(leaf);
    expect(documentedLeafHash(leaf).toString('hex')).toBe(leafHashHex);
    expect(documentedLeafHash(tombstone).toString('hex')).toBe(tombstoneHashHex);
    expect(
      documentedNodeHash(documentedLeafHash(leaf), documentedLeafHash(tombstone)).toString('hex'),
    ).toBe(rootOfBothHex);
  });
});

describe.each(stores)('the leaves the service logs for a decision on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let versionId: string;
  let templateId: string;
  const userAgent = 'FormatTest/1.0 (fixed)';
  const customer = 'c-formats-1';
  let locale: string;

  beforeAll(async () => {
    // A long interval: the tests decide when leaves are appended (`?wait=true` runs a pass).
    t = await startTestApp(store, { LOG_INTEGRATE_INTERVAL_MS: '60000' });
    a = await seedTenant(t.db);
    const code = await seedTemplate(t.db, a.tenant.id);
    const version = await publish(t.db, a.tenant.id, code, {
      content_html: '<p>Consent text</p>',
    });
    versionId = version.consent_version_id;
    const variant = await t.db
      .selectFrom('template_versions')
      .select(['template_id', 'locale'])
      .where('id', '=', versionId)
      .executeTakeFirstOrThrow();
    templateId = variant.template_id;
    locale = variant.locale;
  });
  afterAll(async () => {
    await t.close();
  });

  const get = (url: string) =>
    t.app.inject({ method: 'GET', url, headers: { ...a.headers, 'user-agent': userAgent } });

  it("a decision's receipt carries the documented leaf of its record and opening, after its version's documented publication leaf; an erasure appends the documented tombstone", async () => {
    const decided = await apiOf(t.app, { ...a.headers, 'user-agent': userAgent }).decide(
      customer,
      versionId,
      'given',
    );
    expect(decided.statusCode, decided.body).toBe(201);
    const { decision_id: id, decided_at: decidedAt } = json(decided).data;
    const receiptResponse = await get(`/api/v1/decisions/${id}/receipt?wait=true`);
    expect(receiptResponse.statusCode, receiptResponse.body).toBe(200);
    const receipt = json(receiptResponse).data;
    const { subject_salt: salt, evidence_salt: eSalt } = receipt.opening;

    const expectedSubject = documentedSubject(salt, customer);
    const expectedLeaf =
      'consent-log/leaf/v1\n' +
      `record ${id}\n` +
      `time ${decidedAt}\n` +
      `template ${templateId} 1 sha256:e29b7d2e22b31f02ce9c520c6a8a70c0d2749340a1b15e11e9614e8a384f954f\n` +
      'decision given\n' +
      `subject ${expectedSubject}\n` +
      `evidence ${documentedEvidence(eSalt, a.apiKey.id, '127.0.0.1', userAgent)}\n`;
    expect(receipt.leaf).toBe(expectedLeaf);
    // The version's publication came first: its documented leaf, before the decision's.
    const published = await t.db
      .selectFrom('publications')
      .select(['id', 'published_at'])
      .where('tenant_id', '=', a.tenant.id)
      .executeTakeFirstOrThrow();
    const expectedPublication =
      'consent-log/publication/v1\n' +
      `record ${published.id}\n` +
      `time ${published.published_at}\n` +
      `effective ${published.published_at}\n` +
      `template ${templateId} 1\n` +
      `text ${locale} ${versionId} sha256:e29b7d2e22b31f02ce9c520c6a8a70c0d2749340a1b15e11e9614e8a384f954f file:-\n` +
      'partners -\n';
    expect(receipt).toMatchObject({ leaf_index: 1, tree_size: 2 });
    expect(receipt.publication).toEqual({
      leaf: expectedPublication,
      leaf_index: 0,
      inclusion_proof: [documentedLeafHash(expectedLeaf).toString('base64')],
    });
    const first = json(await get('/api/v1/log/checkpoint')).data;
    expect(first).toMatchObject({
      size: 2,
      root_hash: documentedNodeHash(
        documentedLeafHash(expectedPublication),
        documentedLeafHash(expectedLeaf),
      ).toString('base64'),
    });

    const erased = await eraseCustomer(t.db, t.vault, registry, a.tenant.id, customer, {
      actorKind: 'operator',
      actor: 'test',
      ip: '127.0.0.1',
      userAgent: null,
    });
    expect(erased).toMatchObject({ erased: true, tombstones: 1 });
    const queued = await t.db
      .selectFrom('tlog_pending')
      .select(['record_id', 'leaf', 'queued_at'])
      .where('log_id', '=', a.tenant.id)
      .executeTakeFirstOrThrow();
    const expectedTombstone =
      'consent-log/leaf/v1\n' +
      `record ${queued.record_id}\n` +
      `time ${erased.erased_at}\n` +
      `template ${templateId} 1 sha256:e29b7d2e22b31f02ce9c520c6a8a70c0d2749340a1b15e11e9614e8a384f954f\n` +
      'decision erased\n' +
      `subject ${expectedSubject}\n` +
      'evidence -\n';
    // The queue keeps its hash alone.
    expect(queued.leaf).toBe(documentedLeafHash(expectedTombstone).toString('hex'));
    const signer = parseSignerKey(testLogKeys.signerKey);
    if (!signer.ok) throw new Error(signer.reason);
    expect(await appendBatch(t.db, a.tenant.id, signer.value)).toMatchObject({
      appended: 1,
      size: 3,
    });
    // The tree of the three has the documented root (RFC 6962: the first two, then the third).
    const second = json(await get('/api/v1/log/checkpoint')).data;
    expect(second).toMatchObject({
      size: 3,
      root_hash: documentedNodeHash(
        documentedNodeHash(
          documentedLeafHash(expectedPublication),
          documentedLeafHash(expectedLeaf),
        ),
        documentedLeafHash(expectedTombstone),
      ).toString('base64'),
    });
  });
});
