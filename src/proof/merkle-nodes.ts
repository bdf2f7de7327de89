import { emptyRoot, leafHash, nodeHash } from './merkle.js';
import { half, isOdd, isTreeInteger, largestPowerOfTwoBelow } from './tree-math.js';

// Proofs from complete subtrees instead of all leaves. A store keeps the hashes of complete
// subtrees (insert-only, never rewritten as the tree grows), or recomputes the small ones from
// their few leaves; a proof then needs the node ids listed here, at most 2 * ceil(log2 n).

/** The complete subtree of 2^level leaves starting at leaf index * 2^level. Level 0 = leaves. */
export interface NodeId {
  readonly level: number;
  readonly index: number;
}

/**
 * How to build a proof from stored nodes: proof hash i is the right-border fold of the nodes in
 * elements[i] (one node when that subtree is complete; several, largest first, when it is an
 * incomplete subtree on the right edge of the tree). nodes lists them all for a single query.
 */
export interface ProofPlan {
  readonly elements: readonly (readonly NodeId[])[];
  readonly nodes: readonly NodeId[];
}

/** Nodes for PATH(index, D[size]), mirroring RFC 6962 section 2.1.1. */
export function inclusionPlan(index: number, size: number): ProofPlan {
  if (!isTreeInteger(index) || !isTreeInteger(size) || index >= size) {
    throw new RangeError(`leaf index ${index} is outside a tree of ${size} leaves`);
  }
  const elements: NodeId[][] = [];
  appendPathPlan(index, 0, size, elements);
  return plan(elements);
}

/** Nodes for PROOF(m, D[n]), 0 < m <= n, mirroring RFC 6962 section 2.1.2. */
export function consistencyPlan(m: number, n: number): ProofPlan {
  if (!isTreeInteger(m) || !isTreeInteger(n) || m === 0 || m > n) {
    throw new RangeError(`no consistency proof from size ${m} to size ${n}`);
  }
  const elements: NodeId[][] = [];
  appendSubproofPlan(m, 0, n, true, elements);
  return plan(elements);
}

/** The proof hashes for a plan; lookup must return the stored hash of every node in plan.nodes. */
export function assembleProof(
  proofPlan: ProofPlan,
  lookup: (node: NodeId) => Uint8Array | undefined,
): Uint8Array[] {
  return proofPlan.elements.map((element) =>
    foldRightBorder(element.map((id) => find(lookup, id))),
  );
}

/** The complete subtrees whose fold is the root of a tree of the given size, largest first. */
export function rootNodeIds(size: number): NodeId[] {
  if (!isTreeInteger(size)) throw new RangeError(`invalid tree size ${size}`);
  return rangeNodes(0, size);
}

/**
 * Folds complete-subtree hashes, given largest (leftmost) first, from the right:
 * h[0..k] -> nodeHash(h[0], nodeHash(h[1], ... h[k])). For the hashes of rootNodeIds(n) this is
 * MTH(D[n]); for no hashes it is the empty-tree root.
 */
export function foldRightBorder(hashes: readonly Uint8Array[]): Uint8Array {
  const last = hashes.at(-1);
  if (last === undefined) return emptyRoot();
  let acc = last;
  for (let i = hashes.length - 2; i >= 0; i--) acc = nodeHash(hashes[i] as Uint8Array, acc);
  return acc;
}

/**
 * The nodes that become complete when the leaf at this index is appended, lowest first: the leaf
 * itself, then one parent per trailing one-bit of the index. Node (level, i) for level > 0 is
 * nodeHash of (level - 1, 2i) and (level - 1, 2i + 1).
 */
export function nodesCompletedByLeaf(index: number): NodeId[] {
  if (!isTreeInteger(index)) throw new RangeError(`invalid leaf index ${index}`);
  const nodes: NodeId[] = [{ level: 0, index }];
  for (let level = 0, i = index; isOdd(i); level++, i = half(i)) {
    nodes.push({ level: level + 1, index: half(i) });
  }
  return nodes;
}

/**
 * Every complete subtree below `belowLevel` that the given leaves make, found from the leaves
 * alone: level 0 is each leaf's hash, and node (l + 1, i) is there when both (l, 2i) and
 * (l, 2i + 1) are. Leaves may come from several aligned runs of 2^belowLevel; a run may be short
 * on the right edge of the tree, and makes the subtrees it completes.
 */
export function subtreesOfLeaves(
  leaves: readonly { index: number; leaf: Uint8Array }[],
  belowLevel: number,
): (NodeId & { hash: Uint8Array })[] {
  return subtreesOfLeafHashes(
    leaves.map(({ index, leaf }) => ({ index, hash: leafHash(leaf) })),
    belowLevel,
  );
}

/** `subtreesOfLeaves`, from the leaves' hashes. */
export function subtreesOfLeafHashes(
  leaves: readonly { index: number; hash: Uint8Array }[],
  belowLevel: number,
): (NodeId & { hash: Uint8Array })[] {
  const out: (NodeId & { hash: Uint8Array })[] = [];
  let level = new Map(leaves.map(({ index, hash }) => [index, hash]));
  for (let l = 0; l < belowLevel && level.size > 0; l++) {
    const up = new Map<number, Uint8Array>();
    for (const [index, hash] of level) {
      out.push({ level: l, index, hash });
      const right = isOdd(index) ? undefined : level.get(index + 1);
      if (right) up.set(half(index), nodeHash(hash, right));
    }
    level = up;
  }
  return out;
}

/** The complete subtrees covering leaves [begin, end), left to right, each as large as fits. */
function rangeNodes(begin: number, end: number): NodeId[] {
  const nodes: NodeId[] = [];
  let start = begin;
  while (start < end) {
    let level = 0;
    let width = 1;
    while (start % (width * 2) === 0 && start + width * 2 <= end) {
      width *= 2;
      level++;
    }
    nodes.push({ level, index: start / width });
    start += width;
  }
  return nodes;
}

// The recursions below are those of merkle.ts with node ranges in place of hashes: a subtree of
// the RFC recursion is either complete (one node) or ends at the tree's right edge, where its
// MTH equals the right-border fold of its complete subtrees.

function appendPathPlan(m: number, start: number, end: number, out: NodeId[][]): void {
  const n = end - start;
  if (n <= 1) return;
  const k = largestPowerOfTwoBelow(n);
  if (m < k) {
    appendPathPlan(m, start, start + k, out);
    out.push(rangeNodes(start + k, end));
  } else {
    appendPathPlan(m - k, start + k, end, out);
    out.push(rangeNodes(start, start + k));
  }
}

function appendSubproofPlan(
  m: number,
  start: number,
  end: number,
  complete: boolean,
  out: NodeId[][],
): void {
  const n = end - start;
  if (m === n) {
    if (!complete) out.push(rangeNodes(start, end));
    return;
  }
  const k = largestPowerOfTwoBelow(n);
  if (m <= k) {
    appendSubproofPlan(m, start, start + k, complete, out);
    out.push(rangeNodes(start + k, end));
  } else {
    appendSubproofPlan(m - k, start + k, end, false, out);
    out.push(rangeNodes(start, start + k));
  }
}

function plan(elements: NodeId[][]): ProofPlan {
  return { elements, nodes: elements.flat() };
}

function find(lookup: (node: NodeId) => Uint8Array | undefined, id: NodeId): Uint8Array {
  const hash = lookup(id);
  if (hash === undefined) throw new Error(`missing stored node ${id.level}/${id.index}`);
  return hash;
}
