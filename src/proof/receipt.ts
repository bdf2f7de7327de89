import type { ActedBy } from './acted-by.js';
import type { Checkpoint } from './checkpoint.js';
import type { ExplicitAct } from './commitments.js';
import { encodeBase64 } from './encoding.js';
import type { LeafFormat, StatedRecord } from './leaf-format.js';
import type { NoteVerifier } from './note-keys.js';
import { checkCosigned, checkTimestamp, type OutsidePolicy } from './outside.js';
import { checkPublication, type VerifiedPublication } from './published.js';
import { fail, ok, type Result } from './result.js';
import { type VerifiedTlogProof, verifyTlogProof } from './tlog-proof.js';

/**
 * What opens a decision's leaf: the customer id, the evidence and their salts; `via` only for a
 * record made through the preference centre (its evidence commits to it then).
 */
export interface DecisionOpening {
  customer_id: string;
  subject_salt: string;
  evidence_salt: string;
  ip: string;
  user_agent: string | null;
  api_key_id: string;
  via?: string;
  /** The explicit act behind a consent to sensitive data, when there was one. */
  explicit?: ExplicitAct;
  /** Who acted, when the client said: the subject, or a representative (PDPA section 20). */
  acted_by?: ActedBy;
}

/** What opens a cookie decision's leaf: the visitor id, the evidence and their salts. */
export interface CookieOpening {
  visitor_id: string;
  subject_salt: string;
  evidence_salt: string;
  ip: string;
  user_agent: string | null;
  origin: string;
  locale: string;
}

/**
 * What opens a control's leaf (a channel change, a partner block): a decision's opening, the
 * same customer and evidence; made in the back-office, `api_key_id` is null and `user_id` names
 * the user.
 */
export type ControlOpening = Omit<DecisionOpening, 'api_key_id'> & {
  api_key_id: string | null;
  user_id?: string | null;
};
export type ChannelOpening = ControlOpening;

/**
 * A receipt as the service hands it out (`data` of `GET /api/v1/decisions/{id}/receipt`, or of
 * another kind's receipt route): the record under its kind's member (`decision`,
 * `cookie_decision`, `channel_change`, …), the proof, and the opening.
 */
export interface ReceiptDocument {
  tlog_proof: string;
  /** Absent or null in a receipt issued after the customer (or visitor) was erased. */
  opening?: null | object;
  [section: string]: unknown;
}

/** A verified receipt: where its leaf is, under which checkpoint, of which format. */
export interface VerifiedReceipt<Fields = unknown> {
  leafIndex: number;
  checkpoint: Checkpoint;
  /** True when the receipt carried an opening and it matched the leaf's commitments. */
  opened: boolean;
  /** The format's `kind` (`decision`, `cookie-decision`, `channel-change`, …). */
  kind: string;
  format: LeafFormat<Fields>;
  leaf: Fields;
  /** What the leaf states, named as the receipt names the record's fields. */
  record: StatedRecord;
  /** The given witnesses whose cosignature on the receipt's checkpoint verified, and when. */
  witnesses: readonly { readonly name: string; readonly time: number }[];
  /**
   * With roots given: the RFC 3161 time of the first time-stamped checkpoint at or after the
   * receipt's, the record's leaf being in it.
   */
  timestamp?: { readonly genTime: Date; readonly size: number };
  /**
   * For a record made on a published text, when the receipt shows it: the publication's leaf,
   * proven in the log before the record's, of the text the record's leaf commits to.
   */
  publication?: VerifiedPublication;
}

/** What a receipt is checked against beyond the log's key (witnesses, time-stamps). */
export type ReceiptPolicy = OutsidePolicy;

/**
 * Checks a receipt with nothing but the log's verifier key and the kinds' leaf formats: the
 * signed checkpoint, the leaf's inclusion under it, the leaf's format, and that the record and
 * the opening (customer or visitor id, evidence and their salts), when the receipt carries them,
 * are exactly what the leaf commits to. Accepts the receipt object, the API's whole answer
 * (`{data: receipt}`), or tlog-proof text.
 */
export function verifyReceipt(
  input: string | ReceiptDocument | { data: ReceiptDocument },
  verifiers: readonly NoteVerifier[],
  formats: readonly LeafFormat[],
  options: ReceiptPolicy = {},
): Result<VerifiedReceipt> {
  const receipt: ReceiptDocument =
    typeof input === 'string'
      ? { tlog_proof: input }
      : 'data' in input && typeof input.data === 'object' && input.data !== null
        ? (input.data as ReceiptDocument)
        : (input as ReceiptDocument);
  if (typeof receipt?.tlog_proof !== 'string') return fail('the receipt has no tlog_proof');
  const proof = verifyTlogProof(receipt.tlog_proof, verifiers, options);
  if (!proof.ok) return proof;
  const text = Buffer.from(proof.value.leaf).toString('utf8');
  const shown = checkShownProof(receipt, proof.value, text, verifiers);
  if (!shown.ok) return shown;
  const witnessed = checkCosigned(receipt.cosigned_checkpoint, proof.value, verifiers, options);
  if (!witnessed.ok) return witnessed;
  const stamped = checkTimestamp(receipt.timestamp, proof.value.checkpoint, verifiers, options);
  if (!stamped.ok) return stamped;
  for (const format of formats) {
    const leaf = format.parse(text);
    if (leaf === undefined) continue;
    const checked = checkRecord(receipt, format, leaf, formats);
    if (!checked.ok) return checked;
    const on = format.publishedOn?.(leaf);
    const published = checkPublication(receipt.publication, proof.value, on);
    if (!published.ok) return published;
    return ok({
      leafIndex: proof.value.index,
      checkpoint: proof.value.checkpoint,
      opened: checked.value,
      kind: format.kind,
      format,
      leaf,
      record: format.record(leaf),
      witnesses: witnessed.value,
      ...(stamped.value ? { timestamp: stamped.value } : {}),
      ...(published.value ? { publication: published.value } : {}),
    });
  }
  return fail(`the logged leaf is none of ${formats.map((f) => f.header).join(', ')}`);
}

/**
 * The proof's fields a receipt shows beside `tlog_proof` (`leaf`, `leaf_index`, `tree_size`,
 * `inclusion_proof`, `checkpoint`, `verifier_key`), each against what the verified proof holds:
 * a reader may take any of them as proven, so none may say other than the proof. A field a
 * receipt leaves out (tlog-proof text alone) is not checked.
 */
function checkShownProof(
  receipt: ReceiptDocument,
  proof: VerifiedTlogProof,
  leafText: string,
  verifiers: readonly NoteVerifier[],
): Result<true> {
  const signers = new Set(proof.note.verified.map(({ name, keyId }) => `${name} ${keyId}`));
  const keys = verifiers
    .filter(({ name, keyId }) => signers.has(`${name} ${keyId}`))
    .map(({ verifierKey }) => verifierKey);
  const expected: Record<string, (shown: unknown) => boolean> = {
    leaf: (shown) => shown === leafText,
    leaf_index: (shown) => shown === proof.index,
    tree_size: (shown) => shown === proof.checkpoint.size,
    inclusion_proof: (shown) =>
      Array.isArray(shown) &&
      shown.length === proof.inclusionProof.length &&
      proof.inclusionProof.every((hash, at) => shown[at] === encodeBase64(hash)),
    checkpoint: (shown) => shown === proof.checkpointText,
    verifier_key: (shown) => typeof shown === 'string' && keys.includes(shown),
  };
  for (const [field, matches] of Object.entries(expected)) {
    if (receipt[field] !== undefined && !matches(receipt[field])) {
      return fail(`the receipt's ${field} is not the one its proof holds`);
    }
  }
  return ok(true);
}

/** The record and opening a receipt states against its leaf; true when it was opened. */
function checkRecord<Fields>(
  receipt: ReceiptDocument,
  format: LeafFormat<Fields>,
  leaf: Fields,
  formats: readonly LeafFormat[],
): Result<boolean> {
  const other = formats.find((f) => f.section !== format.section && receipt[f.section]);
  if (other) {
    return fail(`the receipt names a ${other.noun}, but the log holds a ${format.noun}'s leaf`);
  }
  const stated = receipt[format.section];
  if (stated !== undefined && stated !== null) {
    if (typeof stated !== 'object') return fail(`the receipt's ${format.section} is not an object`);
    const mismatch = Object.entries(format.record(leaf)).find(
      ([name, logged]) =>
        (stated as Record<string, unknown>)[name] !== undefined &&
        !same((stated as Record<string, unknown>)[name], logged),
    );
    if (mismatch) return fail(`the receipt's ${mismatch[0]} is not the one in the log`);
  }
  const opening = receipt.opening;
  if (opening === undefined || opening === null) return ok(false);
  if (typeof opening !== 'object') return fail("the receipt's opening is not an object");
  return format.opening(opening, leaf);
}

/** A stated value against the leaf's: the same type and value (a category map by content). */
function same(stated: unknown, logged: StatedRecord[string]): boolean {
  if (typeof logged !== 'object') return stated === logged;
  if (typeof stated !== 'object' || stated === null || Array.isArray(stated)) return false;
  return sortedJson(stated as Record<string, unknown>) === sortedJson(logged);
}

/** A map as JSON with its keys sorted, so that two maps compare by content. */
function sortedJson(map: Record<string, unknown>): string {
  return JSON.stringify(Object.entries(map).sort(([a], [b]) => (a < b ? -1 : 1)));
}
