import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assembleProof,
  consistencyPlan,
  consistencyProof,
  foldRightBorder,
  inclusionPlan,
  inclusionProof,
  leafHash,
  type NodeId,
  nodeHash,
  nodesCompletedByLeaf,
  rootNodeIds,
  rootOf,
  verifyConsistency,
  verifyInclusion,
} from '../../src/proof/index.js';
import { ascii, flipBit } from './fixtures.js';

// Fixed seed and bounded runs: the same cases on every run, a few seconds in all.
const SEED = 20_240_611;

/**
 * Trees of 1 to maxSize leaves, the size drawn first so that large trees are as likely as small
 * ones. Leaves are distinct (each holds its index), so no two positions share a leaf hash.
 */
const leavesArbitrary = (maxSize: number) =>
  fc
    .integer({ min: 1, max: maxSize })
    .chain((n) => fc.array(fc.uint8Array({ maxLength: 24 }), { minLength: n, maxLength: n }))
    .map((suffixes) =>
      suffixes.map((suffix, i) => Uint8Array.from([...ascii(`leaf ${i} `), ...suffix])),
    );

/** Every complete subtree hash, stored the way a log would: node by node as leaves arrive. */
function storeNodes(leafHashes: readonly Uint8Array[]): Map<string, Uint8Array> {
  const store = new Map<string, Uint8Array>();
  const key = (id: NodeId) => `${id.level}/${id.index}`;
  leafHashes.forEach((hash, index) => {
    for (const id of nodesCompletedByLeaf(index)) {
      const value =
        id.level === 0
          ? hash
          : nodeHash(
              store.get(key({ level: id.level - 1, index: 2 * id.index }))!,
              store.get(key({ level: id.level - 1, index: 2 * id.index + 1 }))!,
            );
      store.set(key(id), value);
    }
  });
  return store;
}

const lookupIn = (store: Map<string, Uint8Array>) => (id: NodeId) =>
  store.get(`${id.level}/${id.index}`);

describe('inclusion proofs of random trees', () => {
  it('verify for the leaf and fail for any other leaf, index or tree size', () => {
    fc.assert(
      fc.property(
        leavesArbitrary(300),
        fc.array(fc.nat(), { minLength: 1, maxLength: 8 }),
        (leaves, picks) => {
          const hashes = leaves.map(leafHash);
          const n = hashes.length;
          const root = rootOf(hashes);
          const rootHalf = rootOf(hashes.slice(0, Math.max(1, Math.floor(n / 2))));
          // Every index of small trees, a few of large ones: generation costs O(n) per proof.
          const indices = n <= 40 ? [...Array(n).keys()] : picks.map((pick) => pick % n);
          for (const index of indices) {
            const proof = inclusionProof(hashes, index);
            const leaf = hashes[index]!;
            expect(verifyInclusion(leaf, index, n, proof, root)).toBe(true);
            expect(verifyInclusion(leaf, index + 1, n, proof, root)).toBe(false);
            expect(verifyInclusion(leaf, index - 1, n, proof, root)).toBe(false);
            expect(verifyInclusion(leaf, index, 2 * n, proof, root)).toBe(false);
            expect(verifyInclusion(leaf, index, n, proof, rootHalf)).toBe(n === 1);
            if (n > 1)
              expect(verifyInclusion(hashes[(index + 1) % n]!, index, n, proof, root)).toBe(false);
            expect(verifyInclusion(leaf, index, n, [...proof, leaf], root)).toBe(false);
            if (proof.length > 0) {
              expect(verifyInclusion(leaf, index, n, proof.slice(1), root)).toBe(false);
            }
          }
        },
      ),
      { seed: SEED, numRuns: 40 },
    );
  });

  it('fail after any single bit flip in a proof hash, the leaf or the root', () => {
    fc.assert(
      fc.property(
        leavesArbitrary(300).chain((leaves) =>
          fc.tuple(fc.constant(leaves), fc.nat({ max: leaves.length - 1 })),
        ),
        ([leaves, index]) => {
          const hashes = leaves.map(leafHash);
          const n = hashes.length;
          const root = rootOf(hashes);
          const leaf = leaves[index]!;
          const proof = inclusionProof(hashes, index);
          const verify = (l: Uint8Array, p: Uint8Array[], r: Uint8Array) =>
            verifyInclusion(leafHash(l), index, n, p, r);
          expect(verify(leaf, proof, root)).toBe(true);
          proof.forEach((hash, i) => {
            for (let bit = 0; bit < 256; bit++) {
              const changed = proof.with(i, flipBit(hash, bit));
              expect(verify(leaf, changed, root)).toBe(false);
            }
          });
          for (let bit = 0; bit < leaf.length * 8; bit++) {
            expect(verify(flipBit(leaf, bit), proof, root)).toBe(false);
          }
          for (let bit = 0; bit < 256; bit++) {
            expect(verify(leaf, proof, flipBit(root, bit))).toBe(false);
          }
        },
      ),
      { seed: SEED, numRuns: 12 },
    );
  });
});

describe('consistency proofs of random trees', () => {
  it('verify between every earlier size and the current one, and fail for wrong sizes', () => {
    fc.assert(
      fc.property(leavesArbitrary(120), (leaves) => {
        const hashes = leaves.map(leafHash);
        const n = hashes.length;
        const roots = Array.from({ length: n + 1 }, (_, size) => rootOf(hashes.slice(0, size)));
        const rootN = roots[n]!;
        for (let m = 1; m <= n; m++) {
          const proof = consistencyProof(hashes, m);
          const rootM = roots[m]!;
          expect(verifyConsistency(m, n, proof, rootM, rootN)).toBe(true);
          if (m < n) {
            expect(verifyConsistency(m + 1, n, proof, rootM, rootN)).toBe(false);
            expect(verifyConsistency(m + 1, n, proof, roots[m + 1]!, rootN)).toBe(false);
            expect(verifyConsistency(m, n - 1, proof, rootM, roots[n - 1]!)).toBe(false);
            expect(verifyConsistency(m, n, proof, rootN, rootM)).toBe(false);
            expect(verifyConsistency(m, n, [], rootM, rootN)).toBe(false);
          }
          if (m > 1) expect(verifyConsistency(m - 1, n, proof, roots[m - 1]!, rootN)).toBe(false);
          expect(verifyConsistency(m, 2 * n, proof, rootM, rootN)).toBe(false);
          expect(verifyConsistency(m, n, [...proof, rootN], rootM, rootN)).toBe(false);
          expect(verifyConsistency(0, n, proof, rootM, rootN)).toBe(false);
        }
      }),
      { seed: SEED, numRuns: 25 },
    );
  });

  it('fail after any single bit flip in a proof hash or either root', () => {
    fc.assert(
      fc.property(
        leavesArbitrary(300).chain((leaves) =>
          fc.tuple(fc.constant(leaves), fc.integer({ min: 1, max: leaves.length })),
        ),
        ([leaves, m]) => {
          const hashes = leaves.map(leafHash);
          const n = hashes.length;
          const root1 = rootOf(hashes.slice(0, m));
          const root2 = rootOf(hashes);
          const proof = consistencyProof(hashes, m);
          expect(verifyConsistency(m, n, proof, root1, root2)).toBe(true);
          proof.forEach((hash, i) => {
            for (let bit = 0; bit < 256; bit++) {
              const changed = proof.with(i, flipBit(hash, bit));
              expect(verifyConsistency(m, n, changed, root1, root2)).toBe(false);
            }
          });
          for (let bit = 0; bit < 256; bit++) {
            expect(verifyConsistency(m, n, proof, flipBit(root1, bit), root2)).toBe(false);
            expect(verifyConsistency(m, n, proof, root1, flipBit(root2, bit))).toBe(false);
          }
        },
      ),
      { seed: SEED, numRuns: 12 },
    );
  });
});

describe('proofs from stored complete subtrees', () => {
  it('equal the proofs computed from all leaves, from at most 2 log2 n stored nodes', () => {
    fc.assert(
      fc.property(leavesArbitrary(300), fc.nat(), fc.nat(), (leaves, i, j) => {
        const hashes = leaves.map(leafHash);
        const n = hashes.length;
        const lookup = lookupIn(storeNodes(hashes));
        const maxNodes = 2 * Math.ceil(Math.log2(n));
        const index = i % n;
        const m = 1 + (j % n);

        const inclusion = inclusionPlan(index, n);
        expect(inclusion.nodes.length).toBeLessThanOrEqual(maxNodes);
        expect(assembleProof(inclusion, lookup)).toEqual(inclusionProof(hashes, index));

        const consistency = consistencyPlan(m, n);
        expect(consistency.nodes.length).toBeLessThanOrEqual(maxNodes);
        expect(assembleProof(consistency, lookup)).toEqual(consistencyProof(hashes, m));

        for (const size of [n, m, Math.ceil(n / 2)]) {
          const stored = rootNodeIds(size).map((id) => lookup(id)!);
          expect(foldRightBorder(stored)).toEqual(rootOf(hashes.slice(0, size)));
        }
      }),
      { seed: SEED, numRuns: 200 },
    );
  });

  it('store exactly the complete subtrees, each computed once', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 600 }), (n) => {
        const ids = Array.from({ length: n }, (_, i) => nodesCompletedByLeaf(i)).flat();
        const keys = new Set(ids.map((id) => `${id.level}/${id.index}`));
        expect(keys.size).toBe(ids.length);
        let expected = 0;
        for (let width = 1; width <= n; width *= 2) expected += Math.floor(n / width);
        expect(ids.length).toBe(expected);
        for (const id of ids) expect((id.index + 1) * 2 ** id.level).toBeLessThanOrEqual(n);
      }),
      { seed: SEED, numRuns: 100 },
    );
  });
});
