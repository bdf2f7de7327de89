import { createHash, randomUUID } from 'node:crypto';
import type { KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { type AppendOutcome, appendBatch } from '../../src/decision-log/append.js';
import { auditLog, type Finding } from '../../src/decision-log/audit.js';
import { loadConfig } from '../../src/platform/config.js';
import { createDb } from '../../src/platform/db.js';
import { nowIso } from '../../src/platform/time.js';
import {
  leafText,
  parseSignerKey,
  parseVerifierKey,
  verifyConsistency,
  verifyReceipt,
  verifyTlogProof,
} from '../../src/proof/index.js';
import { parseLeaf } from '../../src/proof/leaf.js';
import { apiOf } from '../helpers/api.js';
import { json, startTestApp, type TestApp, testLogKeys } from '../helpers/app.js';
import { entriesOfLog, inLog, leafHex } from '../helpers/log-entries.js';
import { storedLeaf } from '../helpers/schema-history.js';
import { sealedAsRead } from '../helpers/sealed.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';

const b64 = (text: string) => new Uint8Array(Buffer.from(text, 'base64'));

/**
 * A tenant whose version's publication leaf comes first, then 12 decisions appended in three
 * batches (three checkpoints: 6, 10 and 13).
 */
async function loggedTenant(t: TestApp) {
  const a = await seedTenant(t.db);
  const code = await seedTemplate(t.db, a.tenant.id);
  const version = await publish(t.db, a.tenant.id, code);
  const ids: string[] = [];
  const receipts: Array<{ tree_size: number; tlog_proof: string; checkpoint: string }> = [];
  let last = '';
  for (const batch of [5, 4, 3]) {
    for (let i = 0; i < batch; i += 1) {
      const response = await apiOf(t.app, a.headers).decide(
        `customer-${ids.length}`,
        version.consent_version_id,
        ids.length % 4 === 3 ? 'reject' : 'given',
      );
      expect(response.statusCode).toBe(201);
      last = json(response).data.decision_id;
      ids.push(last);
    }
    const receipt = await receiptOf(t, a, last);
    expect(receipt.statusCode).toBe(200);
    receipts.push(json(receipt).data);
  }
  return { a, ids, receipts };
}

function receiptOf(t: TestApp, a: SeededTenant, id: string) {
  return t.app.inject({
    method: 'GET',
    url: `/api/v1/decisions/${id}/receipt?wait=true`,
    headers: a.headers,
  });
}

const kinds = (findings: Finding[]) => [...new Set(findings.map((f) => f.kind))].sort();

describe.each(stores)('audit of a decision log on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let ids: string[];

  beforeAll(async () => {
    t = await startTestApp(store, { LOG_INTEGRATE_INTERVAL_MS: '60000' });
    ({ a, ids } = await loggedTenant(t));
  });
  afterAll(async () => {
    await t.close();
  });

  /** Applies a change behind the service's back, audits, and puts things back. */
  async function auditWith(
    change: () => Promise<unknown>,
    undo: () => Promise<unknown>,
    logId = a.tenant.id,
  ) {
    await change();
    try {
      return await auditLog(t.db, t.vault, registry, logId);
    } finally {
      await undo();
      expect((await auditLog(t.db, t.vault, registry, logId)).ok).toBe(true);
    }
  }

  const entry = (idx: number) =>
    entriesOfLog(t.db, a.tenant.id)
      .select(['e.record_id', leafHex(t.db)])
      .where('e.idx', '=', idx)
      .executeTakeFirstOrThrow();

  it('an untouched log audits clean: 13 entries (a publication, 12 decisions), 3 checkpoints, no finding', async () => {
    const report = await auditLog(t.db, t.vault, registry, a.tenant.id);
    expect(report).toMatchObject({
      entries: 13,
      checkpoints: 3,
      erased_records: 0,
      ok: true,
      findings: [],
    });
  });

  it('an edited decision row is named', async () => {
    const target = ids[2] as string;
    const report = await auditWith(
      () =>
        t.db
          .updateTable('decisions')
          .set({ decision: 'reject' })
          .where('id', '=', target)
          .execute(),
      () =>
        t.db.updateTable('decisions').set({ decision: 'given' }).where('id', '=', target).execute(),
    );
    expect(report.ok).toBe(false);
    expect(report.findings).toEqual([
      expect.objectContaining({ kind: 'record-differs-from-leaf', index: 3, record_id: target }),
    ]);
  });

  /** The tenant's publication, the text hash it states changed, and how to set its texts. */
  async function editedPublication() {
    const row = await t.db
      .selectFrom('publications')
      .selectAll()
      .where('tenant_id', '=', a.tenant.id)
      .executeTakeFirstOrThrow();
    const texts = row.texts.replace(/"sha256":"[0-9a-f]{64}"/, `"sha256":"${'0'.repeat(64)}"`);
    expect(texts).not.toBe(row.texts);
    const set = (value: string) =>
      t.db.updateTable('publications').set({ texts: value }).where('id', '=', row.id).execute();
    return { row, texts, set };
  }

  it('an edited publication row is named: the text it states is not the one logged', async () => {
    const { row, texts, set } = await editedPublication();
    const report = await auditWith(
      () => set(texts),
      () => set(row.texts),
    );
    expect(report.findings).toEqual([
      expect.objectContaining({ kind: 'record-differs-from-leaf', index: 0, record_id: row.id }),
    ]);
  });

  it("a receipt shows the leaf its record makes today: an edited decision's or publication's no longer verifies", async () => {
    const key = parseVerifierKey(testLogKeys.verifierKey);
    if (!key.ok) throw new Error(key.reason);
    const target = ids[4] as string;
    const receipt = async () => json(await receiptOf(t, a, target)).data;
    const logged = await t.db
      .selectFrom('tlog_entries as e')
      .select(leafHex(t.db))
      .where('e.record_id', '=', target)
      .executeTakeFirstOrThrow();
    const before = await receipt();
    // The log keeps the leaf's hash (RFC 6962: SHA-256 of 0x00 and the text).
    const hash = createHash('sha256')
      .update(Buffer.from([0]))
      .update(before.leaf)
      .digest('hex');
    expect(logged.leaf).toBe(hash);
    expect(verifyReceipt(before, [key.value], registry.formats)).toMatchObject({ ok: true });

    const decide = (decision: 'given' | 'reject') =>
      t.db.updateTable('decisions').set({ decision }).where('id', '=', target).execute();
    await decide('reject');
    try {
      const edited = await receipt();
      expect(parseLeaf(edited.leaf)?.decision).toBe('reject');
      expect(edited.decision.decision).toBe('reject');
      expect(verifyReceipt(edited, [key.value], registry.formats)).toEqual({
        ok: false,
        reason: 'the leaf is not included at this index under the checkpoint root',
      });
    } finally {
      await decide('given');
    }

    const { row, texts, set } = await editedPublication();
    await set(texts);
    try {
      const edited = await receipt();
      expect(edited.leaf).toBe(before.leaf);
      expect(edited.publication.leaf).toContain('0'.repeat(64));
      expect(verifyReceipt(edited, [key.value], registry.formats)).toEqual({
        ok: false,
        reason: "the receipt's publication is not in the log under the receipt's checkpoint",
      });
    } finally {
      await set(row.texts);
    }
    expect(await receipt()).toEqual(before);
  });

  it('a deleted decision row is named', async () => {
    const target = ids[7] as string;
    const row = await sealedAsRead(
      t.db,
      await t.db
        .selectFrom('decisions')
        .selectAll()
        .where('id', '=', target)
        .executeTakeFirstOrThrow(),
    );
    const report = await auditWith(
      () => t.db.deleteFrom('decisions').where('id', '=', target).execute(),
      () => t.db.insertInto('decisions').values(row).execute(),
    );
    expect(report.findings).toEqual([
      expect.objectContaining({ kind: 'record-removed', index: 8, record_id: target }),
    ]);
  });

  it('two entries swapped in the log are found at the first checkpoint after them', async () => {
    const [third, sixth] = [await entry(3), await entry(6)];
    const put = async (idx: number, from: typeof third) =>
      t.db
        .updateTable('tlog_entries')
        .set({ record_id: from.record_id, leaf: await storedLeaf(t.db, from.leaf) })
        .where(inLog(a.tenant.id))
        .where('idx', '=', idx)
        .execute();
    // record_id is unique per log: park one while the other moves.
    const swap = async (x: typeof third, y: typeof third) => {
      await t.db
        .updateTable('tlog_entries')
        .set({ record_id: randomUUID() })
        .where(inLog(a.tenant.id))
        .where('idx', '=', 3)
        .execute();
      await put(6, x);
      await put(3, y);
    };
    const report = await auditWith(
      () => swap(third, sixth),
      () => swap(sixth, third),
    );
    // The log keeps no node of fewer than 16 leaves to compare each leaf with: the first signed
    // checkpoint after leaf 3 (size 6) is where the leaves stop making the roots that were signed,
    // and every later one differs too.
    const mismatched = report.findings.filter((f) => f.kind === 'checkpoint-root-mismatch');
    expect(mismatched.map((f) => f.size)).toEqual([6, 10, 13]);
    // The consistency proofs come from the leaves too: the signed checkpoints no longer follow
    // from one another over this log.
    expect(kinds(report.findings)).toEqual([
      'checkpoint-root-mismatch',
      'checkpoints-inconsistent',
      'state-mismatch',
    ]);
  });

  it('a node of 64 leaves changed or missing is named, and so is a wrong one kept below', async () => {
    // A log of 65 leaves (a publication, 64 decisions): node 6/0 is the first 64.
    const b = await seedTenant(t.db);
    const version = await publish(t.db, b.tenant.id, await seedTemplate(t.db, b.tenant.id));
    let last = '';
    for (let i = 0; i < 64; i += 1) {
      const response = await apiOf(t.app, b.headers).decide(
        `customer-${i}`,
        version.consent_version_id,
        'given',
      );
      last = json(response).data.decision_id;
    }
    expect((await receiptOf(t, b, last)).statusCode).toBe(200);
    const node = (level: number, idx: number) =>
      t.db
        .selectFrom('tlog_nodes')
        .selectAll()
        .where('log_id', '=', b.tenant.id)
        .where('level', '=', level)
        .where('idx', '=', idx);
    const kept = await node(6, 0).executeTakeFirstOrThrow();
    // Nodes of fewer than 64 leaves are not kept: the audit names none missing (below).
    expect(await node(2, 1).executeTakeFirst()).toBeUndefined();
    expect(await node(4, 0).executeTakeFirst()).toBeUndefined();
    const setHash = (hash: string) =>
      t.db
        .updateTable('tlog_nodes')
        .set({ hash })
        .where('log_id', '=', b.tenant.id)
        .where('level', '=', 6)
        .where('idx', '=', 0)
        .execute();
    const removeNode = (level: number, idx: number) =>
      t.db
        .deleteFrom('tlog_nodes')
        .where('log_id', '=', b.tenant.id)
        .where('level', '=', level)
        .where('idx', '=', idx)
        .execute();
    const changed = await auditWith(
      () => setHash('00'.repeat(32)),
      () => setHash(kept.hash),
      b.tenant.id,
    );
    expect(changed.findings).toEqual([
      expect.objectContaining({
        kind: 'node-changed',
        message: expect.stringContaining('node 6/0'),
      }),
    ]);
    const missing = await auditWith(
      () => removeNode(6, 0),
      () => t.db.insertInto('tlog_nodes').values(kept).execute(),
      b.tenant.id,
    );
    expect(missing.findings).toEqual([
      expect.objectContaining({
        kind: 'node-missing',
        message: expect.stringContaining('node 6/0'),
      }),
    ]);
    // A wrong one kept below (as release 0.3.0 wrote them) is named.
    const wrongBelow = await auditWith(
      () =>
        t.db
          .insertInto('tlog_nodes')
          .values({ log_id: b.tenant.id, level: 2, idx: 1, hash: '00'.repeat(32) })
          .execute(),
      () => removeNode(2, 1),
      b.tenant.id,
    );
    expect(wrongBelow.findings).toEqual([
      expect.objectContaining({
        kind: 'node-changed',
        message: expect.stringContaining('node 2/1'),
      }),
    ]);
  });

  it('a checkpoint whose signature or root was changed is named', async () => {
    const checkpoint = await t.db
      .selectFrom('tlog_checkpoints')
      .selectAll()
      .where('log_id', '=', a.tenant.id)
      .where('size', '=', 10)
      .executeTakeFirstOrThrow();
    const forged = checkpoint.note.replace(
      /— (\S+) (.)/,
      (_m, name: string, c: string) => `— ${name} ${c === 'A' ? 'B' : 'A'}`,
    );
    const report = await auditWith(
      () =>
        t.db
          .updateTable('tlog_checkpoints')
          .set({ note: forged })
          .where('log_id', '=', a.tenant.id)
          .where('size', '=', 10)
          .execute(),
      () =>
        t.db
          .updateTable('tlog_checkpoints')
          .set({ note: checkpoint.note })
          .where('log_id', '=', a.tenant.id)
          .where('size', '=', 10)
          .execute(),
    );
    expect(report.findings).toEqual([
      expect.objectContaining({ kind: 'checkpoint-signature-invalid', size: 10 }),
    ]);
  });

  it('a decision written without its leaf is named', async () => {
    const row = await sealedAsRead(
      t.db,
      await t.db
        .selectFrom('decisions')
        .selectAll()
        .where('id', '=', ids[0] as string)
        .executeTakeFirstOrThrow(),
    );
    const smuggled = { ...row, id: '0190e8a0-0000-7000-8000-00000000beef', seq: 99 };
    const report = await auditWith(
      () => t.db.insertInto('decisions').values(smuggled).execute(),
      () => t.db.deleteFrom('decisions').where('id', '=', smuggled.id).execute(),
    );
    expect(report.findings).toEqual([
      expect.objectContaining({ kind: 'record-not-logged', record_id: smuggled.id }),
    ]);
  });

  it('a log appended to while the audit reads, by an append that began before it, is newer, not wrong', async () => {
    const b = await seedTenant(t.db);
    const version = await publish(t.db, b.tenant.id, await seedTemplate(t.db, b.tenant.id));
    const decided = await apiOf(t.app, b.headers).decide(
      'customer-0',
      version.consent_version_id,
      'given',
    );
    expect(decided.statusCode).toBe(201);
    const signer = parseSignerKey(testLogKeys.signerKey);
    if (!signer.ok) throw new Error(signer.reason);
    // The append's time is taken as it begins, before the audit; it commits once the audit has
    // read the last of the leaves and before it reads the log's state, on a connection of its
    // own (the audit's is still held while its plugin runs).
    const began = nowIso();
    const writer = createDb(loadConfig({ DATABASE_URL: t.config.databaseUrl }));
    const entriesReads = new WeakSet<object>();
    let appended: AppendOutcome | undefined;
    const midway: KyselyPlugin = {
      transformQuery: ({ node, queryId }) => {
        if (JSON.stringify(node).includes('"tlog_entries"')) entriesReads.add(queryId);
        return node;
      },
      transformResult: async ({ queryId, result }) => {
        if (!appended && entriesReads.has(queryId) && result.rows.length === 0) {
          appended = await appendBatch(writer, b.tenant.id, signer.value, () => began);
        }
        return result;
      },
    };
    const report = await auditLog(t.db.withPlugin(midway), t.vault, registry, b.tenant.id).finally(
      () => writer.destroy(),
    );
    // The publication's and the decision's leaves, appended while the audit read.
    expect(appended).toMatchObject({ appended: 2, size: 2 });
    expect(report).toMatchObject({ entries: 0, ok: true, findings: [] });
    expect(await auditLog(t.db, t.vault, registry, b.tenant.id)).toMatchObject({
      entries: 2,
      ok: true,
      findings: [],
    });
  });
});

describe.each(stores)('a log rolled back and rewritten on $name', (store) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(store, { LOG_INTEGRATE_INTERVAL_MS: '60000' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('audit names the cut; an earlier receipt still verifies, and its checkpoint is not consistent with the rewritten log', async () => {
    const { a, receipts } = await loggedTenant(t);
    const logId = a.tenant.id;
    // The receipt a customer kept: their decision, under the checkpoint of size 10.
    const kept = receipts[1] as (typeof receipts)[number];
    expect(kept.tree_size).toBe(10);
    const vkey = parseVerifierKey(testLogKeys.verifierKey);
    if (!vkey.ok) throw new Error(vkey.reason);

    // Back to size 6, as from an old backup of the log's tables, then 6 other leaves appended
    // and signed with the key: size 12, which no earlier checkpoint had.
    await t.db.deleteFrom('tlog_entries').where(inLog(logId)).where('idx', '>=', 6).execute();
    // Every node that a leaf from index 6 on completed goes with it.
    for (let level = 0, width = 1; level < 5; level += 1, width *= 2) {
      await t.db
        .deleteFrom('tlog_nodes')
        .where('log_id', '=', logId)
        .where('level', '=', level)
        .where('idx', '>=', Math.ceil(7 / width) - 1)
        .execute();
    }
    const six = await t.db
      .selectFrom('tlog_checkpoints')
      .selectAll()
      .where('log_id', '=', logId)
      .where('size', '=', 6)
      .executeTakeFirstOrThrow();
    await t.db
      .updateTable('tlog_state')
      .set({ size: 6, root: six.root })
      .where('log_id', '=', logId)
      .execute();
    for (let i = 0; i < 6; i += 1) {
      await t.db
        .insertInto('tlog_pending')
        .values({
          log_id: logId,
          record_id: `0190e8a0-0000-7000-8000-0000000000a${i}`,
          leaf: leafText({
            recordId: `0190e8a0-0000-7000-8000-0000000000a${i}`,
            time: new Date().toISOString(),
            templateId: 'x',
            version: 1,
            contentSha256: '0'.repeat(64),
            decision: 'given',
            subject: 'AAAA',
            evidence: 'AAAA',
          }),
          queued_at: new Date().toISOString(),
        })
        .execute();
    }
    const signer = parseSignerKey(testLogKeys.signerKey);
    if (!signer.ok) throw new Error(signer.reason);
    expect(await appendBatch(t.db, logId, signer.value)).toMatchObject({ appended: 6, size: 12 });

    const report = await auditLog(t.db, t.vault, registry, logId);
    expect(report.ok).toBe(false);
    expect(report.findings).toContainEqual(
      expect.objectContaining({ kind: 'checkpoint-root-mismatch', size: 10 }),
    );
    expect(report.findings).toContainEqual(
      expect.objectContaining({ kind: 'checkpoint-beyond-log', size: 13 }),
    );
    expect(report.findings).toContainEqual(
      expect.objectContaining({ kind: 'checkpoints-inconsistent', size: 12 }),
    );
    // The decisions cut from the log are found too.
    expect(report.findings.filter((f) => f.kind === 'record-not-logged')).toHaveLength(7);

    // Covering the tracks: the checkpoints the new leaves contradict are deleted too. The store
    // alone no longer shows the rewrite; the receipt the customer kept does.
    await t.db
      .deleteFrom('tlog_checkpoints')
      .where('log_id', '=', logId)
      .where('size', 'in', [10, 13])
      .execute();
    // The receipt from before (size 10) still verifies on its own...
    expect(verifyTlogProof(kept.tlog_proof, [vkey.value]).ok).toBe(true);
    // ...and the log now served cannot prove it grew from that checkpoint.
    const now = json(
      await t.app.inject({ method: 'GET', url: '/api/v1/log/checkpoint', headers: a.headers }),
    ).data;
    expect(now.size).toBe(12);
    const proof = await t.app.inject({
      method: 'GET',
      url: `/api/v1/log/consistency?from=${kept.tree_size}&to=${now.size}`,
      headers: a.headers,
    });
    expect(proof.statusCode).toBe(200);
    const oldRoot = b64(kept.checkpoint.split('\n')[2] as string);
    expect(
      verifyConsistency(
        kept.tree_size,
        now.size,
        json(proof).data.proof.map(b64),
        oldRoot,
        b64(now.root_hash),
      ),
    ).toBe(false);
  });
});
