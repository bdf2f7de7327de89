import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { appendBatch } from '../../src/decision-log/append.js';
import { auditLog } from '../../src/decision-log/audit.js';
import { leafRebuilder } from '../../src/decision-log/leaves.js';
import { eraseCustomer } from '../../src/erasure/service.js';
import { migrateToLatest } from '../../src/platform/migrate.js';
import {
  parseSignerKey,
  parseVerifierKey,
  verifyConsistency,
  verifyReceipt,
} from '../../src/proof/index.js';
import { parseLeaf } from '../../src/proof/leaf.js';
import { personalReader } from '../../src/subjects/service.js';
import { apiOf } from '../helpers/api.js';
import { json, startTestApp, type TestApp, testDataKey, testLogKeys } from '../helpers/app.js';
import { asBefore0062, storedLookup } from '../helpers/schema-history.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { storeBytes } from '../helpers/store-scan.js';
import { stores } from '../helpers/stores.js';

// Values that occur nowhere else, so that finding one in the store can only mean a leak.
const customer = 'erin.erasure-7f3a9c@example.test';
const ip = '203.0.113.177';
const userAgent = 'ErasureProbe/7.3 (marker-5b8e21d4)';
const by = { actorKind: 'operator', actor: 'test', ip: '127.0.0.1', userAgent: null } as const;

const b64 = (text: string) => new Uint8Array(Buffer.from(text, 'base64'));

describe.each(stores)('erasing a customer on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let codes: string[];
  let versions: string[];
  const signer = () => {
    const key = parseSignerKey(testLogKeys.signerKey);
    if (!key.ok) throw new Error(key.reason);
    return key.value;
  };
  const verifier = () => {
    const key = parseVerifierKey(testLogKeys.verifierKey);
    if (!key.ok) throw new Error(key.reason);
    return key.value;
  };

  beforeAll(async () => {
    // The test appends the log itself (appendBatch), at the moments it chooses.
    t = await startTestApp(store, { LOG_INTEGRATE_INTERVAL_MS: '60000' });
    a = await seedTenant(t.db);
    codes = [await seedTemplate(t.db, a.tenant.id), await seedTemplate(t.db, a.tenant.id)];
    versions = [];
    for (const code of codes) {
      versions.push((await publish(t.db, a.tenant.id, code)).consent_version_id);
    }
  });
  afterAll(async () => {
    await t.close();
  });

  /**
   * The texts of the leaves waiting for the log (of `ids`, else all the tenant's), rebuilt from
   * their records: the queue holds each one's hash alone, which must be that of its text.
   */
  const queuedTexts = async (ids?: readonly string[]) => {
    let query = t.db
      .selectFrom('tlog_pending')
      .select(['record_id', 'leaf'])
      .where('log_id', '=', a.tenant.id);
    if (ids) query = query.where('record_id', 'in', ids);
    const queued = await query.execute();
    const rebuilt = await leafRebuilder(
      t.db,
      t.vault,
      registry,
      a.tenant.id,
    )(queued.map((row) => ({ ...row, idx: 0 })));
    return queued.map((row) => {
      const text = rebuilt.get(row.record_id)?.leaf as string;
      const hash = createHash('sha256')
        .update(Buffer.from([0]))
        .update(text, 'utf8');
      expect(row.leaf).toBe(hash.digest('hex'));
      return text;
    });
  };

  const headers = () => ({ ...a.headers, 'user-agent': userAgent });
  const api = () => apiOf(t.app, headers());
  const decide = async (who: string, version: string, decision: string, key?: string) => {
    const response = await t.app.inject({
      method: 'POST',
      url: `/api/v1/customers/${encodeURIComponent(who)}/consents/decisions`,
      headers: { ...headers(), ...(key ? { 'idempotency-key': key } : {}) },
      payload: { consent_version_id: version, decision },
      remoteAddress: ip,
    });
    expect(response.statusCode, response.body).toBe(201);
    return json(response).data.decision_id as string;
  };
  const receipt = async (id: string) => {
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/v1/decisions/${id}/receipt`,
      headers: a.headers,
    });
    expect(response.statusCode, response.body).toBe(200);
    return json(response).data;
  };

  const storeContents = () => storeBytes(t.db, t.config.databaseUrl);

  it('leaves no way to the customer id, IP address or user agent, a fresh pending, and a log whose old receipts and audit still verify', async () => {
    const tenantId = a.tenant.id;
    const [v1, v2] = versions as [string, string];
    const given = await decide(customer, v1, 'given', 'erase-key-1');
    await decide(customer, v1, 'withdraw');
    await decide(customer, v2, 'given');
    const other = await decide('someone-else', v1, 'given');
    await appendBatch(t.db, tenantId, signer());
    const before = await receipt(given);
    expect(before.opening).toMatchObject({ customer_id: customer, ip, user_agent: userAgent });
    const subject = await t.db
      .selectFrom('subjects')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('lookup', '=', await storedLookup(t.db, t.vault.lookup(tenantId, customer)))
      .executeTakeFirstOrThrow();

    // Before: the idempotency record's stored answer names the customer (the scan can see it).
    expect((await storeContents()).includes(customer)).toBe(true);

    const result = await eraseCustomer(t.db, t.vault, registry, tenantId, customer, by);
    expect(result).toMatchObject({
      erased: true,
      subject_id: subject.id,
      decisions: 3,
      tombstones: 2,
    });

    // Nothing that could open the records is left: not the key, not the salt, not the look-up.
    const contents = await storeContents();
    for (const secret of [
      customer,
      ip,
      userAgent,
      subject.wrapped_key ?? '',
      subject.salt ?? '',
      subject.lookup ?? '',
    ]) {
      expect(secret).not.toBe('');
      expect(contents.includes(secret), `${secret} is still in the store`).toBe(false);
    }
    // Even with the data key, the sealed fields no longer open.
    const rows = await t.db
      .selectFrom('decisions')
      .select(['id', 'subject_id', 'personal'])
      .where('tenant_id', '=', tenantId)
      .where('subject_id', '=', subject.id)
      .execute();
    expect(rows).toHaveLength(3);
    const opened = await personalReader(t.db, t.vault, tenantId)(rows);
    expect(opened.map((o) => o.state)).toEqual(['erased', 'erased', 'erased']);

    // For the API, the customer starts afresh.
    for (const code of codes) {
      const pending = await api().pending(customer, code);
      expect(json(pending).data).toMatchObject({ accepted: false, decision: null });
    }
    const consents = await t.app.inject({
      method: 'GET',
      url: `/api/v1/customers/${encodeURIComponent(customer)}/consents`,
      headers: a.headers,
    });
    expect(json(consents).data).toMatchObject({ templates: [], history: [] });
    // The key the customer used before answers as new, not as a replay of the erased decision.
    const reused = await t.app.inject({
      method: 'POST',
      url: `/api/v1/customers/${encodeURIComponent(customer)}/consents/decisions`,
      headers: { ...headers(), 'idempotency-key': 'erase-key-1' },
      payload: { consent_version_id: v1, decision: 'given' },
      remoteAddress: ip,
    });
    expect(reused.statusCode).toBe(201);
    expect(reused.headers['idempotent-replayed']).toBeUndefined();
    expect(json(reused).data.decision_id).not.toBe(given);

    // The tombstones join the log; the receipt from before still verifies, and the new
    // checkpoint is consistent with the one it named.
    // Their texts, of which the queue and the log keep the hashes.
    const queued = await queuedTexts();
    const appended = await appendBatch(t.db, tenantId, signer());
    expect(appended.appended).toBe(3);
    const tombstones = queued
      .map((text) => parseLeaf(text))
      .filter((l) => l?.decision === 'erased');
    expect(tombstones).toHaveLength(2);
    const oldLeaf = parseLeaf(before.leaf);
    for (const tombstone of tombstones) {
      // The customer, holding their receipt, can see their record was erased.
      expect(tombstone?.subject).toBe(oldLeaf?.subject);
      expect(tombstone?.evidence).toBe('-');
    }
    expect(verifyReceipt(before, [verifier()], registry.formats)).toMatchObject({ ok: true });
    const checkpoint = json(
      await t.app.inject({ method: 'GET', url: '/api/v1/log/checkpoint', headers: a.headers }),
    ).data;
    const proof = json(
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/log/consistency?from=${before.tree_size}&to=${checkpoint.size}`,
        headers: a.headers,
      }),
    ).data;
    const oldRoot = before.checkpoint.split('\n')[2] as string;
    expect(
      verifyConsistency(
        before.tree_size,
        checkpoint.size,
        proof.proof.map(b64),
        b64(oldRoot),
        b64(checkpoint.root_hash),
      ),
    ).toBe(true);

    // A receipt now still proves the decision, without whose it was.
    const after = await receipt(given);
    expect(after.opening).toBeNull();
    expect(after.decision.customer_id).toBeNull();
    expect(after.leaf).toBe(before.leaf);
    expect(verifyReceipt(after, [verifier()], registry.formats)).toMatchObject({
      ok: true,
      value: { opened: false },
    });
    // The exports name the customer, so there are none for an erased one.
    const export27560 = await t.app.inject({
      method: 'GET',
      url: `/api/v1/decisions/${given}/receipt/kantara`,
      headers: a.headers,
    });
    expect(export27560.statusCode).toBe(404);
    expect((await receipt(other)).opening.customer_id).toBe('someone-else');

    // The audit recomputes every leaf it still can, and finds nothing wrong.
    const report = await auditLog(t.db, t.vault, registry, tenantId);
    // The two versions' publications, and the decisions and tombstones.
    expect(report).toMatchObject({ ok: true, entries: 9, erased_records: 3, findings: [] });

    // The erasure is in the audit log under the record's random id only.
    const entry = await t.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'customer.erased')
      .executeTakeFirstOrThrow();
    expect(entry).toMatchObject({ tenant_id: tenantId, target: subject.id });

    // Erasing again finds nothing left to erase.
    expect(
      await eraseCustomer(t.db, t.vault, registry, tenantId, 'never-decided', by),
    ).toMatchObject({
      erased: false,
      decisions: 0,
    });
  });

  it('the audit still tells a tampered record of an erased customer from an erased one', async () => {
    const tenantId = a.tenant.id;
    const id = await decide('tamper-after-erasure', versions[0] as string, 'given');
    // The leaf's text (the queue and the log keep its hash).
    const [leaf = ''] = await queuedTexts([id]);
    await eraseCustomer(t.db, t.vault, registry, tenantId, 'tamper-after-erasure', by);
    await appendBatch(t.db, tenantId, signer());
    expect((await auditLog(t.db, t.vault, registry, tenantId)).ok).toBe(true);
    await t.db.updateTable('decisions').set({ decision: 'reject' }).where('id', '=', id).execute();
    const report = await auditLog(t.db, t.vault, registry, tenantId);
    expect(report.findings).toEqual([
      expect.objectContaining({ kind: 'record-differs-from-leaf', record_id: id }),
    ]);
    await t.db.updateTable('decisions').set({ decision: 'given' }).where('id', '=', id).execute();
    // The evidence commitment the erasure kept is the one the decision's leaf carries, and the
    // audit checks it: one changed is named as a changed record.
    const kept = () =>
      t.db
        .selectFrom('erased_evidence')
        .select('evidence')
        .where('tenant_id', '=', tenantId)
        .where('record_id', '=', id)
        .executeTakeFirstOrThrow();
    const { evidence } = await kept();
    expect(`\nevidence ${evidence}\n`).toBe(/\nevidence \S+\n/.exec(leaf)?.[0]);
    const setKept = (value: string) =>
      t.db
        .updateTable('erased_evidence')
        .set({ evidence: value })
        .where('record_id', '=', id)
        .execute();
    await setKept(Buffer.alloc(32, 1).toString('base64'));
    expect((await auditLog(t.db, t.vault, registry, tenantId)).findings).toEqual([
      expect.objectContaining({ kind: 'record-differs-from-leaf', record_id: id }),
    ]);
    await setKept(evidence);
    expect((await auditLog(t.db, t.vault, registry, tenantId)).ok).toBe(true);
    // One removed leaves nothing the leaf can be rebuilt with: named as a changed record too.
    await t.db.deleteFrom('erased_evidence').where('record_id', '=', id).execute();
    expect((await auditLog(t.db, t.vault, registry, tenantId)).findings).toEqual([
      expect.objectContaining({ kind: 'record-differs-from-leaf', record_id: id }),
    ]);
    await t.db
      .insertInto('erased_evidence')
      .values({ tenant_id: tenantId, record_id: id, evidence })
      .execute();
    // A tombstone changed after the fact is caught like any record.
    await t.db
      .updateTable('erasures')
      .set({ version: 99 })
      .where('tenant_id', '=', tenantId)
      .execute();
    const tombstones = await auditLog(t.db, t.vault, registry, tenantId);
    expect(tombstones.ok).toBe(false);
    expect(new Set(tombstones.findings.map((f) => f.kind))).toEqual(
      new Set(['record-differs-from-leaf']),
    );
  });

  it('a store whose customers were erased by a release that kept no evidence commitment gets those their leaves carry', async () => {
    const tenantId = a.tenant.id;
    const who = 'erased-before-0051';
    const ids = [await decide(who, versions[0] as string, 'given')];
    const [leaf = ''] = await queuedTexts(ids);
    await appendBatch(t.db, tenantId, signer());
    // One still queued for the log when the customer is erased.
    ids.push(await decide(who, versions[1] as string, 'reject'));
    const [queuedLeaf = ''] = await queuedTexts([ids[1] as string]);
    await eraseCustomer(t.db, t.vault, registry, tenantId, who, by);
    const all = () =>
      t.db
        .selectFrom('erased_evidence')
        .selectAll()
        .orderBy('tenant_id')
        .orderBy('record_id')
        .execute();
    const keptByErasures = await all();
    expect(keptByErasures.map((row) => row.record_id)).toEqual(expect.arrayContaining(ids));
    const audited = async () => {
      const { ok, findings, erased_records } = await auditLog(t.db, t.vault, registry, tenantId);
      return { ok, findings, erased_records };
    };
    const before = await audited();

    // The store as a release that kept none left it (one before 0051, or 0.3.0 running beside
    // it): none kept for this customer's records, the leaves logged and queued as their texts,
    // 0052 not applied (nor 0062, after which PostgreSQL keeps a leaf as its hash's bytes).
    await asBefore0062(t.db);
    await t.db.deleteFrom('erased_evidence').where('record_id', 'in', ids).execute();
    await t.db
      .updateTable('tlog_entries')
      .set({ leaf })
      .where('record_id', '=', ids[0] as string)
      .execute();
    await t.db
      .updateTable('tlog_pending')
      .set({ leaf: queuedLeaf })
      .where('record_id', '=', ids[1] as string)
      .execute();
    await sql`delete from kysely_migration where name >= '0052-log-leaf-hashes'`.execute(t.db);
    expect(await migrateToLatest(t.db, testDataKey)).toEqual([
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

    // Taken from the leaves, logged or queued: what the erasures had computed from the records.
    expect(await all()).toEqual(keptByErasures);
    expect(await audited()).toEqual(before);
    expect(JSON.stringify(before.findings)).not.toMatch(new RegExp(ids.join('|')));
    expect(before.erased_records).toBeGreaterThanOrEqual(2);
  });
});
