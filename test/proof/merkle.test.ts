import { describe, expect, it } from 'vitest';
import {
  assembleProof,
  consistencyPlan,
  consistencyProof,
  emptyRoot,
  foldRightBorder,
  inclusionPlan,
  inclusionProof,
  leafHash,
  type NodeId,
  nodeHash,
  rootNodeIds,
  rootOf,
  subtreesOfLeaves,
  verifyConsistency,
  verifyInclusion,
} from '../../src/proof/index.js';
import { ascii, b64, hex, loadFixture, toHex } from './fixtures.js';

interface TreeVectors {
  leaves: string[];
  nodeHashes: string[][];
  roots: string[];
}
interface HashVectors {
  emptyRoot: string;
  leaves: { leaf: string; hash: string }[];
  nodes: { left: string; right: string; hash: string }[];
}
interface ProofVectors {
  inclusion: { leaf: number; size: number; proof: string[] }[];
  consistency: { size1: number; size2: number; proof: string[] }[];
}
interface NodeIdVectors {
  inclusionErrors: [number, number][];
  inclusion: { size: number; index: number; ids: [number, number][]; rehash?: [number, number] }[];
  consistencyErrors: [number, number][];
  consistency: {
    size1: number;
    size2: number;
    ids: [number, number][];
    rehash?: [number, number];
  }[];
}
interface Probe<T> {
  path: string;
  commit: string;
  probe: T & { proof: string[] | null; desc: string; wantErr: boolean };
}
interface TestData {
  inclusion: Probe<{ leafIdx: number; treeSize: number; root: string; leafHash: string }>[];
  consistency: Probe<{ size1: number; size2: number; root1: string; root2: string }>[];
}

const tree = loadFixture<TreeVectors>('rfc6962-tree.json');
const hashes = loadFixture<HashVectors>('rfc6962-hashes.json');
const proofs = loadFixture<ProofVectors>('rfc6962-proofs.json');
const nodeIds = loadFixture<NodeIdVectors>('proof-node-ids.json');
const testData = loadFixture<TestData>('merkle-testdata.json');

const leafHashes = tree.leaves.map((leaf) => leafHash(hex(leaf)));
const roots = tree.roots.map(hex);
const storedNode = (id: NodeId) => {
  const level = tree.nodeHashes[id.level];
  const hash = level?.[id.index];
  return hash === undefined ? undefined : hex(hash);
};

describe('RFC 6962 hashing', () => {
  it('hashes the empty tree, leaves and nodes as the reference vectors say', () => {
    expect(toHex(emptyRoot())).toBe(hashes.emptyRoot);
    for (const { leaf, hash } of hashes.leaves) expect(toHex(leafHash(ascii(leaf)))).toBe(hash);
    for (const { left, right, hash } of hashes.nodes) {
      expect(toHex(nodeHash(ascii(left), ascii(right)))).toBe(hash);
    }
  });

  it('computes the root of every prefix of the 8 reference leaves (sizes 0 to 8)', () => {
    for (let size = 0; size <= 8; size++) {
      expect(toHex(rootOf(leafHashes.slice(0, size))), `size ${size}`).toBe(tree.roots[size]);
    }
  });

  it('finds every reference complete-subtree hash by folding node ids', () => {
    tree.nodeHashes.forEach((level, levelIndex) => {
      level.forEach((hash, index) => {
        const width = 2 ** levelIndex;
        const leaves = leafHashes.slice(index * width, (index + 1) * width);
        expect(toHex(rootOf(leaves))).toBe(hash);
      });
    });
    for (let size = 0; size <= 8; size++) {
      const folded = foldRightBorder(rootNodeIds(size).map((id) => storedNode(id) as Uint8Array));
      expect(toHex(folded), `size ${size}`).toBe(tree.roots[size]);
    }
  });
});

describe('complete subtrees recomputed from leaves', () => {
  it('gives every reference node hash below the level asked, from all 8 leaves or from a short run', () => {
    const leaves = tree.leaves.map((leaf, index) => ({ index, leaf: hex(leaf) }));
    const all = subtreesOfLeaves(leaves, 4);
    expect(all.map((n) => [n.level, n.index, toHex(n.hash)])).toEqual(
      tree.nodeHashes.flatMap((level, l) => level.map((hash, index) => [l, index, hash])),
    );
    // Leaves 4 to 6 of the 8: the two-leaf subtree (1, 2) is complete, (1, 3) and (2, 1) not.
    const short = subtreesOfLeaves(leaves.slice(4, 7), 4);
    expect(short.map((n) => [n.level, n.index, toHex(n.hash)])).toEqual([
      [0, 4, tree.nodeHashes[0]?.[4]],
      [0, 5, tree.nodeHashes[0]?.[5]],
      [0, 6, tree.nodeHashes[0]?.[6]],
      [1, 2, tree.nodeHashes[1]?.[2]],
    ]);
    expect(subtreesOfLeaves(leaves, 2).map((n) => n.level)).not.toContain(2);
  });
});

describe('RFC 6962 reference inclusion proofs', () => {
  it.each(proofs.inclusion.filter((v) => v.leaf > 0))(
    'generates and verifies leaf $leaf (1-based) in a tree of $size',
    ({ leaf, size, proof }) => {
      const index = leaf - 1;
      const generated = inclusionProof(leafHashes.slice(0, size), index);
      expect(generated.map(toHex)).toEqual(proof);
      expect(verifyInclusion(leafHashes[index]!, index, size, proof.map(hex), roots[size]!)).toBe(
        true,
      );
    },
  );

  it('rejects the invalid path of the vectors (leaf 0 of an empty tree)', () => {
    expect(verifyInclusion(leafHashes[0]!, -1, 0, [], roots[0]!)).toBe(false);
    expect(verifyInclusion(leafHashes[0]!, 0, 0, [], roots[0]!)).toBe(false);
    expect(() => inclusionProof([], 0)).toThrow(RangeError);
  });

  it('verifies every inclusion proof in every tree of the 8 reference leaves', () => {
    for (let size = 1; size <= 8; size++) {
      for (let index = 0; index < size; index++) {
        const proof = inclusionProof(leafHashes.slice(0, size), index);
        expect(verifyInclusion(leafHashes[index]!, index, size, proof, roots[size]!)).toBe(true);
        expect(assembleProof(inclusionPlan(index, size), storedNode)).toEqual(proof);
      }
    }
  });
});

describe('RFC 6962 reference consistency proofs', () => {
  it.each(proofs.consistency)(
    'generates and verifies the proof from size $size1 to size $size2',
    ({ size1, size2, proof }) => {
      const generated = consistencyProof(leafHashes.slice(0, size2), size1);
      expect(generated.map(toHex)).toEqual(proof);
      expect(verifyConsistency(size1, size2, proof.map(hex), roots[size1]!, roots[size2]!)).toBe(
        true,
      );
    },
  );

  it('verifies every consistency proof between trees of the 8 reference leaves', () => {
    for (let size2 = 1; size2 <= 8; size2++) {
      for (let size1 = 1; size1 <= size2; size1++) {
        const proof = consistencyProof(leafHashes.slice(0, size2), size1);
        expect(verifyConsistency(size1, size2, proof, roots[size1]!, roots[size2]!)).toBe(true);
        expect(assembleProof(consistencyPlan(size1, size2), storedNode)).toEqual(proof);
      }
    }
  });
});

// Two probes of the stored testdata accept equal 12-byte "roots" for equal sizes: the reference
// compares bytes only, while this implementation rejects anything that is not a SHA-256 hash.
const STRICTER_HERE = new Set([
  'testdata/consistency/additional/sizes-are-equal-zero-and-proof-is-empty.json',
  'testdata/consistency/additional/sizes-are-equal-one-and-proof-is-empty.json',
]);

describe('transparency-dev/merkle testdata probes', () => {
  it.each(testData.inclusion)('inclusion $path: $probe.desc', ({ probe }) => {
    const proof = (probe.proof ?? []).map(b64);
    const verified = verifyInclusion(
      b64(probe.leafHash),
      probe.leafIdx,
      probe.treeSize,
      proof,
      b64(probe.root),
    );
    expect(verified).toBe(!probe.wantErr);
  });

  it.each(testData.consistency)('consistency $path: $probe.desc', ({ path, probe }) => {
    const proof = (probe.proof ?? []).map(b64);
    const verified = verifyConsistency(
      probe.size1,
      probe.size2,
      proof,
      b64(probe.root1),
      b64(probe.root2),
    );
    expect(verified).toBe(STRICTER_HERE.has(path) ? false : !probe.wantErr);
  });

  it('accepts equal sizes with an empty proof when the equal roots are real hashes', () => {
    expect(verifyConsistency(1, 1, [], roots[1]!, roots[1]!)).toBe(true);
    expect(verifyConsistency(0, 0, [], roots[0]!, roots[0]!)).toBe(false);
  });
});

describe('proof node ids (transparency-dev/merkle proof_test.go)', () => {
  // The source lists an incomplete subtree's nodes smallest first and folds them; a plan lists
  // them largest first, as one element.
  const expectedElements = (ids: [number, number][], rehash?: [number, number]) => {
    const toId = ([level, index]: [number, number]) => ({ level, index });
    if (rehash === undefined || rehash[0] === rehash[1]) return ids.map((id) => [toId(id)]);
    const [begin, end] = rehash;
    return [
      ...ids.slice(0, begin).map((id) => [toId(id)]),
      ids.slice(begin, end).reverse().map(toId),
      ...ids.slice(end).map((id) => [toId(id)]),
    ];
  };

  it.each(nodeIds.inclusion)(
    'lists the nodes of the inclusion proof of $index in a tree of $size',
    ({ size, index, ids, rehash }) => {
      const plan = inclusionPlan(index, size);
      expect(plan.elements).toEqual(expectedElements(ids, rehash));
      expect(plan.nodes).toHaveLength(ids.length);
    },
  );

  it.each(nodeIds.consistency)(
    'lists the nodes of the consistency proof from $size1 to $size2',
    ({ size1, size2, ids, rehash }) => {
      const plan = consistencyPlan(size1, size2);
      expect(plan.elements).toEqual(expectedElements(ids, rehash));
      expect(plan.nodes).toHaveLength(ids.length);
    },
  );

  it('refuses the parameters the source refuses', () => {
    for (const [size, index] of nodeIds.inclusionErrors) {
      expect(() => inclusionPlan(index, size)).toThrow(RangeError);
    }
    for (const [size1, size2] of nodeIds.consistencyErrors) {
      expect(() => consistencyPlan(size1, size2)).toThrow(RangeError);
    }
  });
});

describe('sizes beyond 32 bits', () => {
  // A tree whose leaves all hash alike has the same hash for every node of a level, so a
  // store for a tree of almost 2^53 leaves is a table of 53 hashes.
  const levelHashes = [leafHash(ascii('same leaf'))];
  for (let level = 1; level <= 53; level++) {
    const below = levelHashes[level - 1]!;
    levelHashes.push(nodeHash(below, below));
  }
  const lookup = (id: NodeId) => levelHashes[id.level];
  const rootOfSize = (size: number) =>
    foldRightBorder(rootNodeIds(size).map((id) => levelHashes[id.level]!));

  it('builds and verifies inclusion proofs for indices above 2^32', () => {
    const cases = [
      [2 ** 32 + 5, 2 ** 32 + 9],
      [2 ** 40 + 12_345, 2 ** 41 + 3],
      [2 ** 52 + 7, Number.MAX_SAFE_INTEGER],
      [Number.MAX_SAFE_INTEGER - 1, Number.MAX_SAFE_INTEGER],
    ] as const;
    for (const [index, size] of cases) {
      const plan = inclusionPlan(index, size);
      expect(plan.nodes.length).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(size)));
      for (const id of plan.nodes) expect((id.index + 1) * 2 ** id.level).toBeLessThanOrEqual(size);
      const proof = assembleProof(plan, lookup);
      expect(verifyInclusion(levelHashes[0]!, index, size, proof, rootOfSize(size))).toBe(true);
      expect(verifyInclusion(levelHashes[1]!, index, size, proof, rootOfSize(size))).toBe(false);
    }
  });

  it('builds and verifies consistency proofs between sizes above 2^32', () => {
    const cases = [
      [2 ** 32 + 1, 2 ** 33 + 17],
      [2 ** 45 - 1, 2 ** 45 + 2 ** 20],
      [2 ** 52 + 3, Number.MAX_SAFE_INTEGER],
    ] as const;
    for (const [size1, size2] of cases) {
      const plan = consistencyPlan(size1, size2);
      expect(plan.nodes.length).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(size2)));
      const proof = assembleProof(plan, lookup);
      expect(verifyConsistency(size1, size2, proof, rootOfSize(size1), rootOfSize(size2))).toBe(
        true,
      );
    }
  });

  it('rejects sizes and indices that are not safe integers', () => {
    const leaf = levelHashes[0]!;
    expect(verifyInclusion(leaf, 0, 2 ** 53, [], leaf)).toBe(false);
    expect(verifyInclusion(leaf, 0.5, 2, [], leaf)).toBe(false);
    expect(verifyInclusion(leaf, Number.NaN, 2, [], leaf)).toBe(false);
    expect(verifyConsistency(1, 2 ** 53 + 2, [leaf], leaf, leaf)).toBe(false);
    expect(() => inclusionPlan(0, 2 ** 53)).toThrow(RangeError);
  });
});
