import { type Kysely, Migrator } from 'kysely';
import { describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { appendBatch } from '../../src/decision-log/append.js';
import { auditLog } from '../../src/decision-log/audit.js';
import { pendingReads } from '../../src/decisions/pending-repository.js';
import type { Db } from '../../src/platform/db.js';
import { migrateToLatest } from '../../src/platform/migrate.js';
import * as initial from '../../src/platform/migrations/0001-initial.js';
import * as backoffice from '../../src/platform/migrations/0002-backoffice.js';
import * as decisionLog from '../../src/platform/migrations/0003-decision-log.js';
import * as customerHistory from '../../src/platform/migrations/0004-customer-history.js';
import * as logAudits from '../../src/platform/migrations/0005-log-audits.js';
import { parseSignerKey } from '../../src/proof/index.js';
import { findSubjectId, personalReader } from '../../src/subjects/service.js';
import { createVault } from '../../src/subjects/vault.js';
import { testDataKey, testLogKeys } from '../helpers/app.js';
import { sealedAsBase64 } from '../helpers/sealed.js';
import { publishRow, seedTemplateRow, seedTenantRow } from '../helpers/seed.js';
import { stores, useBareStore } from '../helpers/stores.js';
import { documentedEvidence, documentedLeaf, documentedSubject } from '../proof/documented.js';

const vault = createVault(testDataKey);

/** The store as it was before the log (the first two migrations only), with a published version. */
async function storeBeforeTheLog(db: Db) {
  const before = new Migrator({
    db,
    provider: {
      getMigrations: async () => ({ '0001-initial': initial, '0002-backoffice': backoffice }),
    },
  });
  expect((await before.migrateToLatest()).error).toBeUndefined();
  const a = await seedTenantRow(db);
  const code = await seedTemplateRow(db, a.tenant.id);
  const version = await publishRow(db, a.tenant.id, code, '<p>Consent text</p>');
  const { template_id } = await db
    .selectFrom('template_versions')
    .select('template_id')
    .where('id', '=', version.consent_version_id)
    .executeTakeFirstOrThrow();
  // SHA-256 (hex) of '<p>Consent text</p>'.
  const content_sha256 = 'e29b7d2e22b31f02ce9c520c6a8a70c0d2749340a1b15e11e9614e8a384f954f';
  return { a, version, template_id, content_sha256 };
}

describe.each(stores)('upgrading a store with decisions to the decision log on $name', (store) => {
  const bare = useBareStore(store);

  it('queues every earlier decision, oldest first, with the leaf a new decision would get; sealing the personal data keeps every leaf, and the log audits clean', async () => {
    const { db } = bare;
    const { a, version, template_id, content_sha256 } = await storeBeforeTheLog(db);
    const earlier = [
      ['0190e8a0-0000-7000-8000-000000000003', 'carol', 1, '2026-01-03T00:00:00.000Z'],
      ['0190e8a0-0000-7000-8000-000000000001', 'alice', 1, '2026-01-01T00:00:00.000Z'],
      ['0190e8a0-0000-7000-8000-000000000002', 'alice', 2, '2026-01-02T00:00:00.000Z'],
    ] as const;
    for (const [id, customer, seq, at] of earlier) {
      // The columns decisions had then (no evidence salt yet).
      await db
        .insertInto('decisions')
        .values({
          tenant_id: a.tenant.id,
          id,
          customer_id: customer,
          template_id,
          consent_version_id: version.consent_version_id,
          version: 1,
          decision: seq === 1 ? 'given' : 'withdraw',
          seq,
          decided_at: at,
          api_key_id: a.apiKey.id,
          ip: '198.51.100.9',
          user_agent: 'Older/1.0',
          content_sha256,
          idempotency_key: null,
        } as never)
        .execute();
    }

    // The first customers' states, an idempotency record and a look-up, as they were kept then.
    for (const [customer, last] of [
      ['alice', '0190e8a0-0000-7000-8000-000000000002'],
      ['carol', '0190e8a0-0000-7000-8000-000000000003'],
    ] as const) {
      const state = {
        tenant_id: a.tenant.id,
        customer_id: customer,
        last_decision_id: last,
        last_decision: customer === 'alice' ? 'withdraw' : 'given',
        last_decided_at: '2026-01-03T00:00:00.000Z',
      };
      await db
        .insertInto('customer_template_states')
        .values({
          ...state,
          template_id,
          decision_count: customer === 'alice' ? 2 : 1,
          last_consent_version_id: version.consent_version_id,
        } as never)
        .execute();
      await db
        .insertInto('customer_version_states')
        .values({ ...state, consent_version_id: version.consent_version_id } as never)
        .execute();
    }
    await db
      .insertInto('idempotency_keys')
      .values({
        tenant_id: a.tenant.id,
        key: 'k-1',
        customer_id: 'carol',
        request_hash: 'h',
        status_code: 201,
        response_body: '{}',
        created_at: '2026-01-03T00:00:00.000Z',
      } as never)
      .execute();
    for (const target of ['carol', 'nobody']) {
      await db
        .insertInto('audit_log')
        .values({
          id: `0190e8a0-0000-7000-8000-00000000010${target === 'carol' ? 1 : 2}`,
          tenant_id: a.tenant.id,
          actor_kind: 'tenant',
          actor: 'owner@example.com',
          action: 'customer.looked_up',
          target,
          details: null,
          ip: '127.0.0.1',
          user_agent: null,
          created_at: '2026-01-03T00:00:00.000Z',
        })
        .execute();
    }

    // As far as the decision log, with the salts the log's first migration gave each customer.
    const toLog = new Migrator({
      db,
      provider: {
        getMigrations: async () => ({
          '0001-initial': initial,
          '0002-backoffice': backoffice,
          '0003-decision-log': decisionLog,
          '0004-customer-history': customerHistory,
          '0005-log-audits': logAudits,
        }),
      },
    });
    expect((await toLog.migrateToLatest()).error).toBeUndefined();

    const queued = await db
      .selectFrom('tlog_pending')
      .selectAll()
      .where('log_id', '=', a.tenant.id)
      .orderBy('queued_at')
      .execute();
    expect(queued.map((row) => row.record_id)).toEqual([
      '0190e8a0-0000-7000-8000-000000000001',
      '0190e8a0-0000-7000-8000-000000000002',
      '0190e8a0-0000-7000-8000-000000000003',
    ]);
    const old = db as unknown as Kysely<any>;
    const salts = (await old
      .selectFrom('log_subjects')
      .selectAll()
      .where('tenant_id', '=', a.tenant.id)
      .execute()) as { customer_id: string; salt: string }[];
    expect(salts.map((row) => row.customer_id).sort()).toEqual(['alice', 'carol']);
    // Each leaf as docs/proof.md writes it, from the decision as inserted above and the salts
    // the migration drew.
    for (const [id, customer, seq, at] of [...earlier].sort((x, y) => x[3].localeCompare(y[3]))) {
      const row = queued.find((q) => q.record_id === id);
      const { evidence_salt } = await old
        .selectFrom('decisions')
        .select('evidence_salt')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      expect(evidence_salt).toEqual(expect.any(String));
      const salt = salts.find((s) => s.customer_id === customer)?.salt ?? '';
      expect(row?.leaf).toBe(
        documentedLeaf({
          record: id,
          time: at,
          templateId: template_id,
          version: 1,
          contentSha256: content_sha256,
          decision: seq === 1 ? 'given' : 'withdraw',
          subject: documentedSubject(salt, customer),
          evidence: documentedEvidence(evidence_salt, a.apiKey.id, '198.51.100.9', 'Older/1.0'),
        }),
      );
    }

    // Then the personal data is sealed, each customer under a key of their own.
    expect(await migrateToLatest(db, testDataKey)).toEqual([
      '0006-subjects',
      '0007-backoffice-flashes',
      '0008-team',
      '0009-two-factor',
      '0010-version-reviews',
      '0011-products',
      '0012-api-key-last-four',
      '0013-template-archive',
      '0014-content-files',
      '0015-locales',
      '0016-webhooks',
      '0017-webhook-secret-overlap',
      '0018-draft-authorship',
      '0019-cookies',
      '0020-cookie-decisions-by-system',
      '0021-partners',
      '0022-channel-blocks',
      '0023-template-validity',
      '0024-controls',
      '0025-preference-centre',
      '0026-preference-codes',
      '0027-cookie-refused-origins',
      '0028-store-settings',
      '0029-lapse-progress',
      '0030-log-epochs',
      '0031-log-witnesses',
      '0032-publications',
      '0033-sensitive-templates',
      '0034-representation-rules',
      '0035-held-consent-acts',
      '0036-subject-requests',
      '0037-request-deliveries',
      '0038-processing-record',
      '0039-request-reminders',
      '0040-cookie-scans',
      '0041-choice-region',
      '0042-choice-variant',
      '0043-cookie-overrides',
      '0044-choice-customer',
      '0045-single-sign-on',
      '0046-scim',
      '0047-passkeys',
      '0048-log-nodes-from-level-4',
      '0049-pending-from-indexes',
      '0050-sqlite-states-by-key',
      '0051-erased-evidence',
      '0052-log-leaf-hashes',
      '0053-queued-leaf-hashes',
      '0054-decision-keys-without-tenant',
      '0055-choice-and-subject-keys-without-tenant',
      '0056-control-change-keys-without-tenant',
      '0057-log-record-key-without-log',
      '0058-uuid-ids',
      '0059-decision-content-hash-optional',
      '0060-cookie-choice-content-hash-optional',
      '0061-decision-times-timestamptz',
      '0062-log-entries-binary',
      '0063-subject-lookups-binary',
      '0064-state-keys-without-tenant',
      '0065-control-state-keys-without-tenant',
      '0066-sealed-columns-binary',
      '0067-customer-time-key-without-id',
      '0068-log-nodes-from-level-6',
      '0069-log-entries-by-number',
      '0070-subject-times-timestamptz',
      '0071-states-without-tenant',
      '0072-sqlite-keys-without-tenant',
      '0073-sqlite-states-without-tenant',
      '0074-sqlite-binary-ids',
    ]);
    const tenantId = a.tenant.id;
    const alice = await findSubjectId(db, vault, tenantId, 'alice');
    const carol = await findSubjectId(db, vault, tenantId, 'carol');
    expect(alice).toMatch(/^[0-9a-f-]{36}$/);
    expect(carol).toMatch(/^[0-9a-f-]{36}$/);
    expect(alice).not.toBe(carol);
    const subjects = await sealedAsBase64(
      db,
      await db.selectFrom('subjects').selectAll().execute(),
    );
    expect(subjects.map((s) => s.salt).sort()).toEqual(salts.map((s) => s.salt).sort());
    const decisions = await sealedAsBase64(
      db,
      await db
        .selectFrom('decisions')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .orderBy('id')
        .execute(),
    );
    expect(decisions.map((d) => d.subject_id)).toEqual([alice, alice, carol]);
    const opened = await personalReader(db, vault, tenantId)(decisions);
    expect(opened.map((o) => o.personal)).toEqual(
      ['alice', 'alice', 'carol'].map((customer_id) => ({
        customer_id,
        ip: '198.51.100.9',
        user_agent: 'Older/1.0',
      })),
    );
    expect(JSON.stringify(decisions)).not.toMatch(/alice|carol|198\.51\.100\.9|Older/);
    expect(
      await pendingReads(db, undefined, 1).versionState(
        tenantId,
        vault.lookup(tenantId, 'carol'),
        version.consent_version_id,
      ),
    ).toMatchObject({ last_decision: 'given' });
    const states = await db.selectFrom('customer_template_states').selectAll().execute();
    expect(states.map((s) => s.subject_id).sort()).toEqual([alice, carol].sort());
    expect(await db.selectFrom('idempotency_keys').select('customer_lookup').execute()).toEqual([
      { customer_lookup: vault.lookup(tenantId, 'carol') },
    ]);
    const lookups = await db
      .selectFrom('audit_log')
      .select(['id', 'target'])
      .orderBy('id')
      .execute();
    expect(lookups.map((l) => l.target)).toEqual([carol, null]);

    const signer = parseSignerKey(testLogKeys.signerKey);
    if (!signer.ok) throw new Error(signer.reason);
    expect(await appendBatch(db, a.tenant.id, signer.value)).toMatchObject({
      appended: 3,
      size: 3,
    });
    expect(await auditLog(db, vault, registry, a.tenant.id)).toMatchObject({
      entries: 3,
      ok: true,
    });
  });
});

describe.each(stores)('upgrading a store of more than a page of decisions on $name', (store) => {
  const bare = useBareStore(store);

  it('queues, seals and converts every decision and customer, each once, and the log audits clean', async () => {
    const { db } = bare;
    const { a, version, template_id, content_sha256 } = await storeBeforeTheLog(db);
    // 1,100 decisions of 1,050 customers: more than two pages of every conversion step.
    const customers = 1_050;
    const rows = Array.from({ length: 1_100 }, (_, i) => ({
      tenant_id: a.tenant.id,
      id: `0190e8a0-0000-7000-8000-${String(i).padStart(12, '0')}`,
      customer_id: `c-${i % customers}`,
      template_id,
      consent_version_id: version.consent_version_id,
      version: 1,
      decision: i < customers ? 'given' : 'withdraw',
      seq: i < customers ? 1 : 2,
      decided_at: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
      api_key_id: a.apiKey.id,
      ip: `198.51.100.${i % 250}`,
      user_agent: `Older/${i}`,
      content_sha256,
      idempotency_key: null,
    }));
    for (let start = 0; start < rows.length; start += 100) {
      await db
        .insertInto('decisions')
        .values(rows.slice(start, start + 100) as never)
        .execute();
    }

    await migrateToLatest(db, testDataKey);

    const queued = await db.selectFrom('tlog_pending').select('record_id').execute();
    expect(new Set(queued.map((q) => q.record_id))).toEqual(new Set(rows.map((r) => r.id)));
    expect(queued).toHaveLength(rows.length);
    const subjects = await db.selectFrom('subjects').select('id').execute();
    expect(subjects).toHaveLength(customers);
    const decisions = await sealedAsBase64(
      db,
      await db.selectFrom('decisions').selectAll().orderBy('id').execute(),
    );
    const opened = await personalReader(db, vault, a.tenant.id)(decisions);
    expect(opened.map((o) => o.personal)).toEqual(
      rows.map((r) => ({ customer_id: r.customer_id, ip: r.ip, user_agent: r.user_agent })),
    );

    const signer = parseSignerKey(testLogKeys.signerKey);
    if (!signer.ok) throw new Error(signer.reason);
    await appendBatch(db, a.tenant.id, signer.value);
    await appendBatch(db, a.tenant.id, signer.value);
    expect(await auditLog(db, vault, registry, a.tenant.id)).toMatchObject({
      entries: rows.length,
      ok: true,
      findings: [],
    });
  });
});
