import { bytesEqual, sha256 } from './encoding.js';
import { half, isOdd, isPowerOfTwo, isTreeInteger, largestPowerOfTwoBelow } from './tree-math.js';

// RFC 6962 / RFC 9162 Merkle tree hashing with SHA-256. Generation follows RFC 6962 section 2.1
// line by line over leaf hashes held in memory; verification follows RFC 9162 sections 2.1.3.2
// and 2.1.4.2 step by step, with the sizes and indices as plain numbers (see tree-math.ts).

export const HASH_SIZE = 32;

const LEAF_PREFIX = Uint8Array.of(0x00);
const NODE_PREFIX = Uint8Array.of(0x01);

/** SHA-256(0x00 || leaf): the prefix keeps a leaf from ever passing for an inner node. */
export function leafHash(leaf: Uint8Array): Uint8Array {
  return sha256(LEAF_PREFIX, leaf);
}

/** SHA-256(0x01 || left || right). */
export function nodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  return sha256(NODE_PREFIX, left, right);
}

/** MTH({}) = SHA-256 of the empty string. A function, so no caller can alter a shared constant. */
export function emptyRoot(): Uint8Array {
  return sha256();
}

/** MTH(D[n]) of RFC 6962 section 2.1 over the leaf hashes. */
export function rootOf(leafHashes: readonly Uint8Array[]): Uint8Array {
  return subtreeRoot(leafHashes, 0, leafHashes.length);
}

/** PATH(index, D[n]) of RFC 6962 section 2.1.1, from the leaf's sibling up to the root's child. */
export function inclusionProof(leafHashes: readonly Uint8Array[], index: number): Uint8Array[] {
  if (!isTreeInteger(index) || index >= leafHashes.length) {
    throw new RangeError(`leaf index ${index} is outside a tree of ${leafHashes.length} leaves`);
  }
  const proof: Uint8Array[] = [];
  appendPath(leafHashes, index, 0, leafHashes.length, proof);
  return proof;
}

/** PROOF(m, D[n]) of RFC 6962 section 2.1.2 for 0 < m <= n (empty when m = n). */
export function consistencyProof(leafHashes: readonly Uint8Array[], m: number): Uint8Array[] {
  if (!isTreeInteger(m) || m === 0 || m > leafHashes.length) {
    throw new RangeError(`no consistency proof from size ${m} to size ${leafHashes.length}`);
  }
  const proof: Uint8Array[] = [];
  appendSubproof(leafHashes, m, 0, leafHashes.length, true, proof);
  return proof;
}

/** RFC 9162 section 2.1.3.2. False for any malformed input, never an exception. */
export function verifyInclusion(
  leaf: Uint8Array,
  index: number,
  size: number,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): boolean {
  if (!isTreeInteger(index) || !isTreeInteger(size) || index >= size) return false;
  if (!isHash(leaf) || !isHash(root) || !isHashList(proof)) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (isOdd(fn) || fn === sn) {
      r = nodeHash(p, r);
      while (!isOdd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && bytesEqual(r, root);
}

/**
 * RFC 9162 section 2.1.4.2 for 0 < size1 < size2. Equal sizes are consistent when the proof is
 * empty and the roots are equal (RFC 6962 gives an empty PROOF(n, D[n])). A consistency proof
 * from the empty tree proves nothing, so size1 = 0 is rejected, as transparency-dev/merkle does.
 */
export function verifyConsistency(
  size1: number,
  size2: number,
  proof: readonly Uint8Array[],
  root1: Uint8Array,
  root2: Uint8Array,
): boolean {
  if (!isTreeInteger(size1) || !isTreeInteger(size2) || size1 === 0 || size1 > size2) return false;
  if (!isHash(root1) || !isHash(root2) || !isHashList(proof)) return false;
  if (size1 === size2) return proof.length === 0 && bytesEqual(root1, root2);
  if (proof.length === 0) return false;
  const path = isPowerOfTwo(size1) ? [root1, ...proof] : proof;
  let fn = size1 - 1;
  let sn = size2 - 1;
  while (isOdd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  let fr = path[0] as Uint8Array;
  let sr = fr;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (isOdd(fn) || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      while (!isOdd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return bytesEqual(fr, root1) && bytesEqual(sr, root2) && sn === 0;
}

function isHash(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array && value.length === HASH_SIZE;
}

function isHashList(value: unknown): value is readonly Uint8Array[] {
  return Array.isArray(value) && value.every(isHash);
}

function subtreeRoot(hashes: readonly Uint8Array[], start: number, end: number): Uint8Array {
  const n = end - start;
  if (n === 0) return emptyRoot();
  if (n === 1) return hashes[start] as Uint8Array;
  const k = largestPowerOfTwoBelow(n);
  return nodeHash(subtreeRoot(hashes, start, start + k), subtreeRoot(hashes, start + k, end));
}

function appendPath(
  hashes: readonly Uint8Array[],
  m: number,
  start: number,
  end: number,
  out: Uint8Array[],
): void {
  const n = end - start;
  if (n <= 1) return;
  const k = largestPowerOfTwoBelow(n);
  if (m < k) {
    appendPath(hashes, m, start, start + k, out);
    out.push(subtreeRoot(hashes, start + k, end));
  } else {
    appendPath(hashes, m - k, start + k, end, out);
    out.push(subtreeRoot(hashes, start, start + k));
  }
}

function appendSubproof(
  hashes: readonly Uint8Array[],
  m: number,
  start: number,
  end: number,
  complete: boolean,
  out: Uint8Array[],
): void {
  const n = end - start;
  if (m === n) {
    // SUBPROOF(m, D[m], true) = {}: the verifier already holds that root.
    if (!complete) out.push(subtreeRoot(hashes, start, end));
    return;
  }
  const k = largestPowerOfTwoBelow(n);
  if (m <= k) {
    appendSubproof(hashes, m, start, start + k, complete, out);
    out.push(subtreeRoot(hashes, start + k, end));
  } else {
    appendSubproof(hashes, m - k, start + k, end, false, out);
    out.push(subtreeRoot(hashes, start, start + k));
  }
}
