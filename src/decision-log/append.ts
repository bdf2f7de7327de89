import type { Db, Trx } from '../platform/db.js';
import { tryLockKey } from '../platform/locks.js';
import { nowIso } from '../platform/time.js';
import {
  foldRightBorder,
  type NodeId,
  type NoteSigner,
  nodeHash,
  nodesCompletedByLeaf,
  rootNodeIds,
  signCheckpoint,
} from '../proof/index.js';
import { loggedLeafHash } from './logged-leaf.js';
import { lowestStoredLevel, readNodes } from './nodes.js';
import {
  defaultOrigin,
  deletePending,
  findLog,
  findState,
  insertCheckpoint,
  insertEntries,
  insertLog,
  insertNodes,
  insertState,
  moveStateFrom,
  nodeKey,
  readPending,
  toHex,
} from './repository.js';
import type { TlogNodesTable } from './table.js';

/** Most leaves appended by one transaction, and so per signed checkpoint, by default. */
export const batchSize = 1000;

export type AppendOutcome =
  | { appended: number; size: number; origin: string; root: string }
  | { appended: 0; skipped: 'busy' | 'other-key' | 'nothing' };

/**
 * Appends up to `maxLeaves` queued leaves to one log and signs the checkpoint of the new size, in
 * one transaction. Any instance may call it: the advisory lock spares wasted work, and the
 * compare-and-swap on `tlog_state` keeps two appends from ever both committing, so no two
 * different checkpoints of one size can exist (and their key forbids it too).
 */
export async function appendBatch(
  db: Db,
  logId: string,
  signer: NoteSigner,
  now = nowIso,
  maxLeaves = batchSize,
): Promise<AppendOutcome> {
  return db.transaction().execute(async (trx) => {
    if (!(await tryLockKey(trx, `tlog:${logId}`))) return { appended: 0, skipped: 'busy' };
    const log = await findLog(trx, logId);
    if (log && log.verifier_key !== signer.verifierKey) {
      return { appended: 0, skipped: 'other-key' };
    }
    const pending = await readPending(trx, logId, maxLeaves);
    if (pending.length === 0) return { appended: 0, skipped: 'nothing' };
    const at = now();
    const origin = log?.origin ?? defaultOrigin(signer, logId);
    if (!log) {
      await insertLog(trx, {
        log_id: logId,
        tenant_id: logId,
        origin,
        verifier_key: signer.verifierKey,
        created_at: at,
      });
    }
    const state = await findState(trx, logId);
    const oldSize = state ? Number(state.size) : 0;
    const newSize = oldSize + pending.length;

    // Every node completed by the new leaves is a hash of nodes completed in this batch or of
    // complete subtrees of the old tree, which are exactly the old root's border.
    const known = await readNodes(trx, logId, rootNodeIds(oldSize));
    const newNodes: TlogNodesTable[] = [];
    // A queued leaf is its text, or its hash alone as a release after this one may queue it.
    const hashes = pending.map((row) => loggedLeafHash(row.leaf));
    pending.forEach((_, i) => {
      const index = oldSize + i;
      for (const node of nodesCompletedByLeaf(index)) {
        const hash =
          node.level === 0
            ? (hashes[i] as Uint8Array)
            : nodeHash(
                lookup(known, { level: node.level - 1, index: node.index * 2 }),
                lookup(known, { level: node.level - 1, index: node.index * 2 + 1 }),
              );
        known.set(nodeKey(node), hash);
        if (node.level >= lowestStoredLevel) {
          newNodes.push({ log_id: logId, level: node.level, idx: node.index, hash: toHex(hash) });
        }
      }
    });
    const root = foldRightBorder(rootNodeIds(newSize).map((node) => lookup(known, node)));

    await insertEntries(
      trx,
      logId,
      pending.map((row, i) => ({
        idx: oldSize + i,
        record_id: row.record_id,
        // The hash alone: the text is rebuilt from the record when shown (`logged-leaf.ts`).
        leaf: toHex(hashes[i] as Uint8Array),
        integrated_at: at,
      })),
    );
    await insertNodes(trx, newNodes);
    await deletePending(
      trx,
      logId,
      pending.map((row) => row.record_id),
    );
    await moveState(trx, logId, oldSize, state === undefined, newSize, root, at);
    const note = signCheckpoint({ origin, size: newSize, rootHash: root, extensions: [] }, [
      signer,
    ]);
    await insertCheckpoint(trx, {
      log_id: logId,
      size: newSize,
      root: toHex(root),
      note,
      created_at: at,
    });
    return { appended: pending.length, size: newSize, origin, root: toHex(root) };
  });
}

function lookup(known: Map<string, Uint8Array>, node: NodeId): Uint8Array {
  const hash = known.get(nodeKey(node));
  if (!hash) throw new Error(`log node ${nodeKey(node)} is missing from the store`);
  return hash;
}

/** The compare-and-swap: only the append that saw `oldSize` may move the log. */
async function moveState(
  trx: Trx,
  logId: string,
  oldSize: number,
  isNew: boolean,
  newSize: number,
  root: Uint8Array,
  at: string,
): Promise<void> {
  const values = { size: newSize, root: toHex(root), updated_at: at };
  if (isNew) {
    await insertState(trx, { log_id: logId, ...values });
    return;
  }
  if (!(await moveStateFrom(trx, logId, oldSize, values))) {
    throw new Error(`log ${logId} moved past size ${oldSize} during this append`);
  }
}
