/**
 * The log keeps each leaf's hash alone (64 hex digits in `tlog_entries.leaf`); entries that 0.4.0
 * writes with their texts, during a rolling upgrade, are read alike: receipts are the same byte
 * for byte and verify, the audit is clean and still names an edited record, the smallest subtrees
 * of proofs are recomputed from either. Migration 0052 turns texts into hashes (and 0062 keeps
 * them as 32 bytes of `bytea` on PostgreSQL, `log-entry-types.test.ts`). Leaves are
 * queued (`tlog_pending`) as their hashes too (0053), and one that 0.5.0 queues as its text is
 * appended alike.
 */
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { auditLog } from '../../src/decision-log/audit.js';
import { leafRebuilder } from '../../src/decision-log/leaves.js';
import { eraseCustomer } from '../../src/erasure/service.js';
import { migrateToLatest } from '../../src/platform/migrate.js';
import { findStoreSetting } from '../../src/platform/store-settings-repository.js';
import { parseVerifierKey, verifyReceipt } from '../../src/proof/index.js';
import { apiOf } from '../helpers/api.js';
import { json, startTestApp, type TestApp, testDataKey, testLogKeys } from '../helpers/app.js';
import { entriesOfLog, leafHex } from '../helpers/log-entries.js';
import { asBefore0062 } from '../helpers/schema-history.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';

const by = { actorKind: 'operator', actor: 'test', ip: '127.0.0.1', userAgent: null } as const;

describe.each(stores)('a log that keeps leaf hashes on $name', (store) => {
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

  const hashHex = (text: string) =>
    createHash('sha256')
      .update(Buffer.from([0]))
      .update(text, 'utf8')
      .digest('hex');
  const logged = async () =>
    new Map(
      (
        await entriesOfLog(t.db, a.tenant.id)
          .select(['e.record_id', leafHex(t.db)])
          .execute()
      ).map((row) => [row.record_id, row.leaf]),
    );
  const audited = () => auditLog(t.db, t.vault, registry, a.tenant.id);

  it('keeps hashes, reads texts beside them, and 0052 turns texts into hashes', async () => {
    // The erasure's tombstone is logged before any receipt is taken.
    await receipt(ids[0] as string);
    const before = new Map<string, { leaf: string; publication: { leaf: string } }>();
    for (const id of ids) before.set(id, await receipt(id));
    // The publication, 21 decisions and the erased customer's tombstone, each kept as its hash.
    const hashes = await logged();
    expect(hashes.size).toBe(23);
    for (const id of ids) expect(hashes.get(id)).toBe(hashHex(before.get(id)?.leaf as string));
    for (const leaf of hashes.values()) expect(leaf).toMatch(/^[0-9a-f]{64}$/);

    // The decisions' entries as 0.4.0 writes them, with their texts, beside the others' hashes,
    // in the store's text column of then (PostgreSQL keeps 32 bytes since 0062).
    await asBefore0062(t.db);
    for (const id of ids) {
      await t.db
        .updateTable('tlog_entries')
        .set({ leaf: before.get(id)?.leaf as string })
        .where('log_id', '=', a.tenant.id)
        .where('record_id', '=', id)
        .execute();
    }
    for (const id of ids) {
      const now = await receipt(id);
      expect(now).toEqual(before.get(id));
      expect(verifyReceipt(now, [verifier()], registry.formats)).toMatchObject({ ok: true });
    }
    const clean = await audited();
    expect(clean).toMatchObject({ entries: 23, erased_records: 1, ok: true, findings: [] });
    const target = ids[5] as string;
    const set = (decision: 'given' | 'reject') =>
      t.db.updateTable('decisions').set({ decision }).where('id', '=', target).execute();
    const editedIsNamed = async () => {
      await set('reject');
      try {
        expect((await audited()).findings).toEqual([
          expect.objectContaining({ kind: 'record-differs-from-leaf', record_id: target }),
        ]);
      } finally {
        await set('given');
      }
    };
    await editedIsNamed();

    // Migration 0052 makes every text its hash again (0062 keeps it as its bytes on PostgreSQL),
    // and 0.3.0 no longer runs on the store.
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
    expect(await logged()).toEqual(hashes);
    // 0053 raised it to 0.5.0, 0058 (PostgreSQL's uuid ids) to 0.6.0, 0059 (the decisions' own
    // copy of the text's hash) to 0.7.0, 0060 (the cookie choices') to 0.8.0, 0061 (decision
    // times) to 0.9.0, 0062 (the log's leaves and times) to 0.10.0, 0063 (the subjects'
    // look-ups) to 0.11.0, 0064 (the states' keys) to 0.12.0, 0065 (the control states' keys)
    // to 0.13.0, 0066 (the sealed columns) to 0.14.0, 0068 (the log's nodes) to 0.15.0,
    // 0069 (the log's entries by number) to 0.16.0, 0070 (the subjects' times) to 0.17.0,
    // 0071 (the states without their tenant) to 0.18.0, 0073 (SQLite's) to 0.19.0.
    expect(await findStoreSetting(t.db, 'oldest_release')).toBe('0.21.0');
    for (const id of ids) expect(await receipt(id)).toEqual(before.get(id));
    expect(await audited()).toMatchObject({ entries: 23, ok: true });

    // An edited record is named by its hash alone; new leaves go after the others.
    await editedIsNamed();
    const later = [await decide('customer-30', 'given'), await decide('customer-31', 'reject')];
    for (const id of [...later, ids[20] as string]) {
      expect(verifyReceipt(await receipt(id), [verifier()], registry.formats)).toMatchObject({
        ok: true,
      });
    }
    expect(await audited()).toMatchObject({ entries: 25, ok: true });
  });

  it('queues each leaf as its hash, and appends one queued as its text alike', async () => {
    const entriesBefore = (await logged()).size;
    // The integrator runs once a minute here: both leaves wait in the queue.
    const queued = [await decide('customer-40', 'given'), await decide('customer-41', 'reject')];
    const waiting = new Map(
      (
        await t.db
          .selectFrom('tlog_pending')
          .select(['record_id', 'leaf'])
          .where('log_id', '=', a.tenant.id)
          .where('record_id', 'in', queued)
          .execute()
      ).map((row) => [row.record_id, row.leaf]),
    );
    // Each waits as its hash alone: that of the text its record makes.
    const rebuilt = await leafRebuilder(
      t.db,
      t.vault,
      registry,
      a.tenant.id,
    )(queued.map((id) => ({ record_id: id, idx: 0, leaf: '' })));
    const texts = new Map(queued.map((id) => [id, rebuilt.get(id)?.leaf as string]));
    for (const id of queued) {
      expect(texts.get(id)).toMatch(/^consent-log\//);
      expect(waiting.get(id)).toBe(hashHex(texts.get(id) as string));
    }
    // The second as 0.5.0, running beside this release, queues it: as its text.
    const second = queued[1] as string;
    await t.db
      .updateTable('tlog_pending')
      .set({ leaf: texts.get(second) as string })
      .where('log_id', '=', a.tenant.id)
      .where('record_id', '=', second)
      .execute();
    for (const id of queued) {
      const shown = await receipt(id);
      expect(shown.leaf).toBe(texts.get(id));
      expect(verifyReceipt(shown, [verifier()], registry.formats)).toMatchObject({ ok: true });
    }
    const hashes = await logged();
    for (const id of queued) expect(hashes.get(id)).toBe(hashHex(texts.get(id) as string));
    expect(await audited()).toMatchObject({ entries: entriesBefore + 2, ok: true, findings: [] });
  });
});
