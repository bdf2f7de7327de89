import type { Executor } from '../platform/db.js';
import { type NodeId, subtreesOfLeafHashes } from '../proof/index.js';
import { loggedLeafHash } from './logged-leaf.js';
import { findLeavesInRuns, nodeKey, readStoredNodes } from './repository.js';

/**
 * The lowest level of the log's nodes read from `tlog_nodes`. A node below it is the hash of at
 * most 2^(level) leaves inside one aligned run of `runWidth` entries, and is recomputed from
 * those leaves: one range read of 64 entries and at most 63 hashes, where `tlog_nodes` would
 * hold 63 rows of every 64 for it (docs/proof.md, "What the store keeps").
 */
export const lowestStoredLevel = 6;
const runWidth = 2 ** lowestStoredLevel;

/**
 * The hashes of the given complete subtrees, by `nodeKey`: those from `lowestStoredLevel` up as
 * stored, those below recomputed from the entries' leaves. A node the log does not have (yet)
 * is absent from the answer.
 */
export async function readNodes(
  db: Executor,
  logId: string,
  nodes: readonly NodeId[],
): Promise<Map<string, Uint8Array>> {
  const stored = nodes.filter((node) => node.level >= lowestStoredLevel);
  const found = await readStoredNodes(db, logId, stored);
  const derived = nodes.filter((node) => node.level < lowestStoredLevel);
  if (derived.length === 0) return found;

  const runs = [...new Set(derived.map((n) => Math.floor((n.index * 2 ** n.level) / runWidth)))];
  const entries = await findLeavesInRuns(
    db,
    logId,
    runs.map((run) => ({ begin: run * runWidth, end: (run + 1) * runWidth })),
  );
  const leaves = entries.map((entry) => ({
    index: Number(entry.idx),
    hash: loggedLeafHash(entry.leaf),
  }));
  const computed = new Map(
    subtreesOfLeafHashes(leaves, lowestStoredLevel).map((node) => [nodeKey(node), node.hash]),
  );
  for (const node of derived) {
    const hash = computed.get(nodeKey(node));
    if (hash) found.set(nodeKey(node), hash);
  }
  return found;
}
