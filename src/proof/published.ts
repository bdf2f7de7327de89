import { decodeBase64 } from './encoding.js';
import type { PublishedOn } from './leaf-format.js';
import { leafHash, verifyInclusion } from './merkle.js';
import {
  type PublicationLeafFields,
  parsePublicationLeaf,
  publicationCovers,
  publicationLeafHeader,
} from './publication-leaf.js';
import { fail, ok, type Result } from './result.js';
import type { VerifiedTlogProof } from './tlog-proof.js';

/** The publication a receipt shows before its record, verified. */
export interface VerifiedPublication {
  leafIndex: number;
  leaf: PublicationLeafFields;
}

/**
 * A receipt's `publication` (the leaf of the text's publication, its index, its inclusion proof
 * under the receipt's own checkpoint) against the verified proof of its record: in the same log,
 * before the record, of the very text the record's leaf commits to. Undefined when the receipt
 * shows none.
 */
export function checkPublication(
  shown: unknown,
  proof: VerifiedTlogProof,
  on: PublishedOn | undefined,
): Result<VerifiedPublication | undefined> {
  if (shown === undefined) return ok(undefined);
  const fields = (typeof shown === 'object' && shown !== null ? shown : {}) as Record<
    string,
    unknown
  >;
  const { leaf, leaf_index: index, inclusion_proof: hashes } = fields;
  const decoded = Array.isArray(hashes)
    ? hashes.map((hash) => (typeof hash === 'string' ? decodeBase64(hash) : undefined))
    : [undefined];
  if (
    typeof leaf !== 'string' ||
    typeof index !== 'number' ||
    !Number.isSafeInteger(index) ||
    decoded.some((hash) => hash === undefined)
  ) {
    return fail("the receipt's publication is not a leaf, an index and an inclusion proof");
  }
  if (index >= proof.index) {
    return fail("the receipt's publication is not in the log before its record");
  }
  const { size, rootHash } = proof.checkpoint;
  const bytes = new Uint8Array(Buffer.from(leaf, 'utf8'));
  if (!verifyInclusion(leafHash(bytes), index, size, decoded as Uint8Array[], rootHash)) {
    return fail("the receipt's publication is not in the log under the receipt's checkpoint");
  }
  const publication = parsePublicationLeaf(leaf);
  if (!publication) return fail(`the receipt's publication is not a ${publicationLeafHeader} leaf`);
  if (!on) return fail('the receipt shows a publication, but its record names no published text');
  if (!publicationCovers(publication, on)) {
    return fail("the receipt's publication is not of the text its record was made on");
  }
  return ok({ leafIndex: index, leaf: publication });
}
