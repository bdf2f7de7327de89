/**
 * A log whose entries hold each leaf's hash alone (64 hex digits in `tlog_entries.leaf`, as a
 * later release writes them) is read as one that holds the texts: receipts are the same byte for
 * byte and verify, the audit is clean and still names an edited record, the smallest subtrees of
 * proofs are recomputed from the hashes, and new leaves are appended beside them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { auditLog } from '../../src/decision-log/audit.js';
import { eraseCustomer } from '../../src/erasure/service.js';
import { leafHash, parseVerifierKey, verifyReceipt } from '../../src/proof/index.js';
import { apiOf } from '../helpers/api.js';
import { json, startTestApp, type TestApp, testLogKeys } from '../helpers/app.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';

const by = { actorKind: 'operator', actor: 'test', ip: '127.0.0.1', userAgent: null } as const;

describe.each(stores)('a log that holds leaf hashes on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let versionId: string;
  const ids: string[] = [];

  const verifier = () => {
    const key = parseVerifierKey(testLogKeys.verifierKey);
    if (!key.ok) throw new Error(key.reason);
    return key.value;
  };
  const receipt = async (id: string) =>
    json(
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/decisions/${id}/receipt?wait=true`,
        headers: a.headers,
      }),
    ).data;
  const decide = async (customer: string, decision: 'given' | 'reject') => {
    const answer = await apiOf(t.app, a.headers).decide(customer, versionId, decision);
    expect(answer.statusCode).toBe(201);
    return json(answer).data.decision_id as string;
  };

  beforeAll(async () => {
    t = await startTestApp(store, { LOG_INTEGRATE_INTERVAL_MS: '60000' });
    a = await seedTenant(t.db);
    const code = await seedTemplate(t.db, a.tenant.id);
    versionId = (await publish(t.db, a.tenant.id, code)).consent_version_id;
    // 21 decisions after the publication (entry 0): a run of 16 entries and a short one after it.
    for (let i = 0; i < 21; i += 1) ids.push(await decide(`customer-${i}`, 'given'));
    // One customer is erased: their decisions' leaves are rebuilt from what the erasure kept.
    await eraseCustomer(t.db, t.vault, registry, a.tenant.id, 'customer-3', by);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers the same receipts, audits clean, names an edited record, and appends beside them', async () => {
    // The erasure's tombstones are logged before any receipt is taken.
    await receipt(ids[0] as string);
    const before = new Map<string, unknown>();
    for (const id of ids) before.set(id, await receipt(id));

    const entries = await t.db
      .selectFrom('tlog_entries')
      .select(['idx', 'leaf'])
      .where('log_id', '=', a.tenant.id)
      .execute();
    // The publication, 21 decisions and the erased customer's tombstone.
    expect(entries).toHaveLength(23);
    for (const entry of entries) {
      const hash = Buffer.from(leafHash(Buffer.from(entry.leaf, 'utf8'))).toString('hex');
      await t.db
        .updateTable('tlog_entries')
        .set({ leaf: hash })
        .where('log_id', '=', a.tenant.id)
        .where('idx', '=', entry.idx)
        .execute();
    }

    for (const id of ids) {
      const now = await receipt(id);
      expect(now).toEqual(before.get(id));
      expect(verifyReceipt(now, [verifier()], registry.formats)).toMatchObject({ ok: true });
    }
    const clean = await auditLog(t.db, t.vault, registry, a.tenant.id);
    expect(clean).toMatchObject({ entries: entries.length, ok: true, findings: [] });
    expect(clean.erased_records).toBe(1);

    const target = ids[5] as string;
    const set = (decision: 'given' | 'reject') =>
      t.db.updateTable('decisions').set({ decision }).where('id', '=', target).execute();
    await set('reject');
    try {
      const report = await auditLog(t.db, t.vault, registry, a.tenant.id);
      expect(report.findings).toEqual([
        expect.objectContaining({ kind: 'record-differs-from-leaf', record_id: target }),
      ]);
    } finally {
      await set('given');
    }

    // New leaves go after the hashed ones, under checkpoints that hold both.
    const later = [await decide('customer-30', 'given'), await decide('customer-31', 'reject')];
    for (const id of [...later, ids[20] as string]) {
      expect(verifyReceipt(await receipt(id), [verifier()], registry.formats)).toMatchObject({
        ok: true,
      });
    }
    expect(await auditLog(t.db, t.vault, registry, a.tenant.id)).toMatchObject({
      entries: entries.length + 2,
      ok: true,
    });
  });
});
