/**
 * Verification side of the tamper-evident consent log, free of any server code: RFC 6962 Merkle
 * proofs, C2SP signed notes, checkpoints and tlog-proof receipts, witnesses' cosignatures and
 * RFC 3161 time-stamp tokens. Everything here is pure (node:crypto, and pkijs for the tokens), so
 * the same code can check receipts outside the service.
 *
 * @module
 * @example
 * const key = parseVerifierKey(publishedVerifierKey);
 * if (key.ok) {
 *   const receipt = verifyTlogProof(receiptText, [key.value]);
 *   if (!receipt.ok) console.error(receipt.reason);
 * }
 */

export {
  type ActedBy,
  type ActorRole,
  type AgeBand,
  actorRoles,
  ageBands,
  type CoConsent,
  isActedBy,
  type RepresentativeRole,
  representativeRoles,
} from './acted-by.js';
export {
  type Checkpoint,
  formatCheckpoint,
  type OpenedCheckpoint,
  openCheckpoint,
  parseCheckpoint,
  signCheckpoint,
} from './checkpoint.js';
export {
  type Evidence,
  type ExplicitAct,
  evidenceCommitment,
  explicitMethods,
  newSalt,
  subjectCommitment,
} from './commitments.js';
export {
  type ChannelLeafFields,
  channelLeafFormat,
  type PartnerLeafFields,
  partnerLeafFormat,
} from './control-leaf.js';
export {
  type CookieEvidence,
  type CookieLeafFields,
  cookieEvidenceCommitment,
  cookieLeafFormat,
  cookieLeafHeader,
  cookieLeafText,
  parseCookieLeaf,
} from './cookie-leaf.js';
export {
  type Cosigner,
  type CosignerVerifier,
  cosignatureTime,
  cosignedMessage,
  generateCosignerKeys,
  openWitnessedCheckpoint,
  parseCosignerKey,
  parseCosignerVerifierKey,
  type WitnessedCheckpoint,
} from './cosignature.js';
export { decodeBase64 } from './encoding.js';
export {
  type EvidenceManifest,
  evidencePackFormat,
  type PackFailure,
  type PackFile,
  type PackVerdict,
  type PackVersion,
  packNoteText,
  packPaths,
  verifyEvidencePack,
  verifyEvidencePackArchive,
} from './evidence-pack.js';
export { decisionLeafFormat, type LeafFields, leafText, parseLeaf } from './leaf.js';
export {
  customerOpening,
  type LeafFormat,
  type LeafLine,
  lineLeafFormat,
  type PublishedOn,
  type StatedRecord,
} from './leaf-format.js';
export {
  consistencyProof,
  emptyRoot,
  HASH_SIZE,
  inclusionProof,
  leafHash,
  nodeHash,
  rootOf,
  verifyConsistency,
  verifyInclusion,
} from './merkle.js';
export {
  assembleProof,
  consistencyPlan,
  foldRightBorder,
  inclusionPlan,
  type NodeId,
  nodesCompletedByLeaf,
  type ProofPlan,
  rootNodeIds,
  subtreesOfLeafHashes,
  subtreesOfLeaves,
} from './merkle-nodes.js';
export {
  type NoteSignature,
  type OpenedNote,
  openNote,
  type ParsedNote,
  parseNote,
  signatureLine,
  signNote,
} from './note.js';
export {
  formatVerifierKey,
  generateNoteKeys,
  type NoteKeyPair,
  type NoteSigner,
  type NoteVerifier,
  noteKeyId,
  parseSignerKey,
  parseVerifierKey,
} from './note-keys.js';
export {
  type PublicationLeafFields,
  type PublishedText,
  parsePublicationLeaf,
  publicationCovers,
  publicationLeafFormat,
  publicationLeafHeader,
  publicationLeafText,
} from './publication-leaf.js';
export { checkPublication, type VerifiedPublication } from './published.js';
export {
  type ChannelOpening,
  type CookieOpening,
  type DecisionOpening,
  type ReceiptDocument,
  type ReceiptPolicy,
  type VerifiedReceipt,
  verifyReceipt,
} from './receipt.js';
export { type RequestLeafFields, requestLeafFormat } from './request-leaf.js';
export { type Failure, fail, ok, type Result } from './result.js';
export {
  pemCertificates,
  readTimestampResponse,
  type TimestampCheckOptions,
  timestampRequest,
  type VerifiedTimestamp,
  verifyTimestampToken,
} from './timestamp.js';
export {
  formatTlogProof,
  parseTlogProof,
  type TlogProof,
  type VerifiedTlogProof,
  verifyTlogProof,
} from './tlog-proof.js';
export {
  type AddCheckpoint,
  formatAddCheckpoint,
  MAX_PROOF_LINES,
  parseAddCheckpoint,
  parseKnownSize,
  SIZE_CONTENT_TYPE,
} from './witness-protocol.js';
