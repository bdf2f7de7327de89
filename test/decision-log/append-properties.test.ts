import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendBatch } from '../../src/decision-log/append.js';
import { lowestStoredLevel, readNodes } from '../../src/decision-log/nodes.js';
import { findState, fromHex, nodeKey } from '../../src/decision-log/repository.js';
import { consistency } from '../../src/decision-log/service.js';
import { newId } from '../../src/platform/ids.js';
import {
  assembleProof,
  generateNoteKeys,
  inclusionPlan,
  leafHash,
  openCheckpoint,
  parseSignerKey,
  parseVerifierKey,
  rootOf,
  verifyConsistency,
  verifyInclusion,
} from '../../src/proof/index.js';
import { startTestApp, type TestApp, testLogKeys } from '../helpers/app.js';
import { stores } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';

const signer = (() => {
  const key = parseSignerKey(testLogKeys.signerKey);
  if (!key.ok) throw new Error(key.reason);
  return key.value;
})();
const verifier = (() => {
  const key = parseVerifierKey(testLogKeys.verifierKey);
  if (!key.ok) throw new Error(key.reason);
  return key.value;
})();

describe.each(stores)('appending to a log in random batches on $name', (store) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(store, { LOG_INTEGRATE_INTERVAL_MS: '60000' });
  });
  afterAll(async () => {
    await t.close();
  });

  it(
    'after every batch, the stored root is the RFC 6962 root of all leaves, every inclusion proof verifies, and every checkpoint is consistent with every later one, with no node below the lowest stored level kept',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.integer({ min: 1, max: 37 }), { minLength: 1, maxLength: 5 }),
          async (batches) => {
            const logId = randomUUID();
            const leaves: string[] = [];
            const roots: Uint8Array[] = [];
            for (const batch of batches) {
              for (let i = 0; i < batch; i += 1) {
                const leaf = `leaf ${leaves.length} of ${logId}\n`;
                leaves.push(leaf);
                await t.db
                  .insertInto('tlog_pending')
                  .values({
                    log_id: logId,
                    // Queue order is by time, then id: the service's ids (UUIDs in the order
                    // made) keep the leaves in order, each in one log only (migration 0057).
                    record_id: newId(),
                    leaf,
                    queued_at: '2026-01-01T00:00:00.000Z',
                  })
                  .execute();
              }
              expect(await appendBatch(t.db, logId, signer)).toMatchObject({
                appended: batch,
                size: leaves.length,
              });
              // Nodes below `lowestStoredLevel` need not be kept: every read and the next append
              // recompute them from the leaves.
              await t.db
                .deleteFrom('tlog_nodes')
                .where('log_id', '=', logId)
                .where('level', '<', lowestStoredLevel)
                .execute();
              const hashes = leaves.map((leaf) => leafHash(Buffer.from(leaf, 'utf8')));
              const state = await findState(t.db, logId);
              const root = rootOf(hashes);
              expect(fromHex(state?.root ?? '')).toEqual(root);
              roots.push(root);
              // Every leaf's proof, from the stored nodes, against this size.
              for (let index = 0; index < leaves.length; index += 1) {
                const plan = inclusionPlan(index, leaves.length);
                const nodes = await readNodes(t.db, logId, plan.nodes);
                const proof = assembleProof(plan, (n) => nodes.get(nodeKey(n)));
                expect(
                  verifyInclusion(hashes[index] as Uint8Array, index, leaves.length, proof, root),
                ).toBe(true);
              }
            }
            const checkpoints = await t.db
              .selectFrom('tlog_checkpoints')
              .selectAll()
              .where('log_id', '=', logId)
              .orderBy('size')
              .execute();
            expect(checkpoints.map((c) => Number(c.size))).toEqual(
              batches.map((_, i) => batches.slice(0, i + 1).reduce((s, n) => s + n, 0)),
            );
            for (const [i, checkpoint] of checkpoints.entries()) {
              const opened = openCheckpoint(checkpoint.note, [verifier]);
              if (!opened.ok) throw new Error(opened.reason);
              expect(opened.value.checkpoint.rootHash).toEqual(roots[i]);
              for (const later of checkpoints.slice(i + 1)) {
                const from = Number(checkpoint.size);
                const to = Number(later.size);
                const { proof } = await consistency(t.db, logId, from, to);
                const hashes = proof.map((p) => new Uint8Array(Buffer.from(p, 'base64')));
                expect(
                  verifyConsistency(
                    from,
                    to,
                    hashes,
                    fromHex(checkpoint.root),
                    fromHex(later.root),
                  ),
                ).toBe(true);
              }
            }
          },
        ),
        { seed: 0x5eed, numRuns: 12 },
      );
    },
    budget(60_000),
  );

  it('an append takes at most the leaves it is allowed, and signs a checkpoint for each', async () => {
    const logId = randomUUID();
    await t.db
      .insertInto('tlog_pending')
      .values(
        ['a', 'b', 'c', 'd', 'e'].map((name, i) => ({
          log_id: logId,
          record_id: newId(),
          leaf: `${name}\n`,
          queued_at: `2026-01-01T00:00:0${i}Z`,
        })),
      )
      .execute();
    const now = () => '2026-01-02T00:00:00.000Z';
    expect(await appendBatch(t.db, logId, signer, now, 2)).toMatchObject({ appended: 2, size: 2 });
    expect(await appendBatch(t.db, logId, signer, now, 2)).toMatchObject({ appended: 2, size: 4 });
    expect(await appendBatch(t.db, logId, signer, now, 2)).toMatchObject({ appended: 1, size: 5 });
    const checkpoints = await t.db
      .selectFrom('tlog_checkpoints')
      .select('size')
      .where('log_id', '=', logId)
      .orderBy('size')
      .execute();
    expect(checkpoints.map((c) => Number(c.size))).toEqual([2, 4, 5]);
  });

  it('an empty queue signs nothing; another key leaves the log alone; a failed append changes nothing', async () => {
    const logId = randomUUID();
    const [first, second] = [newId(), newId()];
    expect(await appendBatch(t.db, logId, signer)).toMatchObject({
      appended: 0,
      skipped: 'nothing',
    });
    await t.db
      .insertInto('tlog_pending')
      .values({
        log_id: logId,
        record_id: first,
        leaf: 'one\n',
        queued_at: '2026-01-01T00:00:00Z',
      })
      .execute();
    expect(await appendBatch(t.db, logId, signer)).toMatchObject({ appended: 1, size: 1 });
    // Another key: the log keeps the key it started with, and this signer leaves it alone.
    const other = parseSignerKey(generateNoteKeys('other/consent-log').signerKey);
    if (!other.ok) throw new Error(other.reason);
    await t.db
      .insertInto('tlog_pending')
      .values({
        log_id: logId,
        record_id: second,
        leaf: 'two\n',
        queued_at: '2026-01-01T00:00:01Z',
      })
      .execute();
    expect(await appendBatch(t.db, logId, other.value)).toEqual({
      appended: 0,
      skipped: 'other-key',
    });
    // A state that no longer matches the stored tree: the append fails and changes nothing.
    await t.db.updateTable('tlog_state').set({ size: 7 }).where('log_id', '=', logId).execute();
    await expect(appendBatch(t.db, logId, signer)).rejects.toThrow();
    const queued = await t.db
      .selectFrom('tlog_pending')
      .select('record_id')
      .where('log_id', '=', logId)
      .execute();
    expect(queued.map((row) => row.record_id)).toEqual([second]);
    expect(
      await t.db
        .selectFrom('tlog_checkpoints')
        .select('size')
        .where('log_id', '=', logId)
        .execute(),
    ).toHaveLength(1);
  });
});
