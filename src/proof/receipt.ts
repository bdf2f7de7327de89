import { type ChannelLeafFields, parseChannelLeaf } from './channel-leaf.js';
import type { Checkpoint } from './checkpoint.js';
import { type CookieLeafFields, cookieEvidenceCommitment, parseCookieLeaf } from './cookie-leaf.js';
import { evidenceCommitment, type LeafFields, parseLeaf, subjectCommitment } from './leaf.js';
import type { NoteVerifier } from './note-keys.js';
import { type PartnerLeafFields, parsePartnerLeaf } from './partner-leaf.js';
import { fail, ok, type Result } from './result.js';
import { verifyTlogProof } from './tlog-proof.js';

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
 * `GET /api/v1/cookie-decisions/{id}/receipt`, which names its record `cookie_decision`, or of
 * `GET /api/v1/channel-changes/{id}/receipt`, which names it `channel_change`).
 */
export interface ReceiptDocument {
  decision?: { decision_id?: string; decision?: string; decided_at?: string; version?: number };
  cookie_decision?: {
    decision_id?: string;
    decided_at?: string;
    configuration_id?: string;
    configuration_version?: number;
    content_sha256?: string;
    method?: string;
    categories?: Record<string, boolean>;
  };
  channel_change?: {
    change_id?: string;
    changed_at?: string;
    product_code?: string;
    channel?: string;
    blocked?: boolean;
  };
  partner_block?: {
    change_id?: string;
    changed_at?: string;
    decision_id?: string;
    partner_code?: string;
    blocked?: boolean;
  };
  tlog_proof: string;
  /** Absent or null in a receipt issued after the customer (or visitor) was erased. */
  opening?: null | DecisionOpening | ControlOpening | CookieOpening;
}

interface Placed {
  leafIndex: number;
  checkpoint: Checkpoint;
  /** True when the receipt carried an opening and it matched the leaf's commitments. */
  opened: boolean;
}

/** A verified receipt, by the kind of leaf the log holds. */
export type VerifiedReceipt =
  | (Placed & { kind: 'decision'; leaf: LeafFields })
  | (Placed & { kind: 'cookie-decision'; leaf: CookieLeafFields })
  | (Placed & { kind: 'channel-change'; leaf: ChannelLeafFields })
  | (Placed & { kind: 'partner-block'; leaf: PartnerLeafFields });

/**
 * Checks a receipt with nothing but the log's verifier key: the signed checkpoint, the leaf's
 * inclusion under it, the leaf's format, and that the record and the opening (customer or
 * visitor id, evidence and their salts), when the receipt carries them, are exactly what the
 * leaf commits to. Accepts the receipt object, the API's whole answer (`{data: receipt}`), or
 * tlog-proof text; a decision's leaf, a cookie decision's or a channel change's.
 */
export function verifyReceipt(
  input: string | ReceiptDocument | { data: ReceiptDocument },
  verifiers: readonly NoteVerifier[],
  options: { readonly origin?: string } = {},
): Result<VerifiedReceipt> {
  const receipt: ReceiptDocument =
    typeof input === 'string' ? { tlog_proof: input } : 'data' in input ? input.data : input;
  if (typeof receipt?.tlog_proof !== 'string') return fail('the receipt has no tlog_proof');
  const proof = verifyTlogProof(receipt.tlog_proof, verifiers, options);
  if (!proof.ok) return proof;
  const text = Buffer.from(proof.value.leaf).toString('utf8');
  const placed = { leafIndex: proof.value.index, checkpoint: proof.value.checkpoint };
  const leaf = parseLeaf(text);
  if (leaf) {
    const checked = checkDecision(receipt, leaf);
    return checked.ok ? ok({ ...placed, kind: 'decision', leaf, opened: checked.value }) : checked;
  }
  const cookie = parseCookieLeaf(text);
  if (cookie) {
    const checked = checkCookieDecision(receipt, cookie);
    return checked.ok
      ? ok({ ...placed, kind: 'cookie-decision', leaf: cookie, opened: checked.value })
      : checked;
  }
  const channel = parseChannelLeaf(text);
  if (channel) {
    const checked = checkChannelChange(receipt, channel);
    return checked.ok
      ? ok({ ...placed, kind: 'channel-change', leaf: channel, opened: checked.value })
      : checked;
  }
  const partner = parsePartnerLeaf(text);
  if (partner) {
    const checked = checkPartnerBlock(receipt, partner);
    return checked.ok
      ? ok({ ...placed, kind: 'partner-block', leaf: partner, opened: checked.value })
      : checked;
  }
  return fail(
    'the logged leaf is none of consent-log/leaf/v1, consent-log/cookie/v1, consent-log/channel/v1',
  );
}

/** The decision and opening of a receipt against a decision's leaf; true when it was opened. */
function checkDecision(receipt: ReceiptDocument, leaf: LeafFields): Result<boolean> {
  if (receipt.cookie_decision) {
    return fail("the receipt names a cookie decision, but the log holds a decision's leaf");
  }
  if (receipt.channel_change || receipt.partner_block) {
    return fail("the receipt names a control's change, but the log holds a decision's leaf");
  }
  const decision = receipt.decision;
  if (decision) {
    const mismatch = firstMismatch([
      ['decision_id', decision.decision_id, leaf.recordId],
      ['decision', decision.decision, leaf.decision],
      ['decided_at', decision.decided_at, leaf.time],
      ['version', decision.version, leaf.version],
    ]);
    if (mismatch) return fail(`the receipt's ${mismatch} is not the one in the log`);
  }
  return checkCustomerOpening(receipt.opening, leaf);
}

/** A decision's or a channel change's opening against its leaf; true when there was one. */
function checkCustomerOpening(
  opening: ReceiptDocument['opening'],
  leaf: { subject: string; evidence: string },
): Result<boolean> {
  if (!opening) return ok(false);
  if (
    !hasStrings(opening, ['customer_id', 'subject_salt', 'evidence_salt', 'ip']) ||
    !hasActor(opening) ||
    !hasVia(opening)
  ) {
    return fail("the receipt's opening is not a decision's (customer id, evidence and salts)");
  }
  if (subjectCommitment(opening.subject_salt, opening.customer_id) !== leaf.subject) {
    return fail("the customer id and salt do not open the leaf's subject commitment");
  }
  const evidence = evidenceCommitment(opening.evidence_salt, {
    ip: opening.ip,
    userAgent: opening.user_agent,
    apiKeyId: opening.api_key_id,
    userId: opening.user_id,
    via: opening.via,
  });
  if (evidence !== leaf.evidence) {
    return fail("the evidence and salt do not open the leaf's evidence commitment");
  }
  return ok(true);
}

/** The channel change and opening of a receipt against a channel leaf; true when it was opened. */
function checkChannelChange(receipt: ReceiptDocument, leaf: ChannelLeafFields): Result<boolean> {
  if (receipt.decision || receipt.cookie_decision || receipt.partner_block) {
    return fail("the receipt names another record, but the log holds a channel change's leaf");
  }
  const stated = receipt.channel_change;
  if (stated) {
    const mismatch = firstMismatch([
      ['change_id', stated.change_id, leaf.recordId],
      ['changed_at', stated.changed_at, leaf.time],
      ['product_code', stated.product_code, leaf.productCode],
      ['channel', stated.channel, leaf.channel],
      [
        'blocked',
        stated.blocked === undefined ? undefined : String(stated.blocked),
        String(leaf.blocked),
      ],
    ]);
    if (mismatch) return fail(`the receipt's ${mismatch} is not the one in the log`);
  }
  return checkCustomerOpening(receipt.opening, leaf);
}

/** The partner block and opening of a receipt against a partner leaf; true when it was opened. */
function checkPartnerBlock(receipt: ReceiptDocument, leaf: PartnerLeafFields): Result<boolean> {
  if (receipt.decision || receipt.cookie_decision || receipt.channel_change) {
    return fail("the receipt names another record, but the log holds a partner block's leaf");
  }
  const stated = receipt.partner_block;
  if (stated) {
    const mismatch = firstMismatch([
      ['change_id', stated.change_id, leaf.recordId],
      ['changed_at', stated.changed_at, leaf.time],
      ['decision_id', stated.decision_id, leaf.decisionId],
      ['partner_code', stated.partner_code, leaf.partnerCode],
      [
        'blocked',
        stated.blocked === undefined ? undefined : String(stated.blocked),
        String(leaf.blocked),
      ],
    ]);
    if (mismatch) return fail(`the receipt's ${mismatch} is not the one in the log`);
  }
  return checkCustomerOpening(receipt.opening, leaf);
}

/** The cookie decision and opening of a receipt against a cookie leaf; true when it was opened. */
function checkCookieDecision(receipt: ReceiptDocument, leaf: CookieLeafFields): Result<boolean> {
  if (receipt.decision) {
    return fail("the receipt names a decision, but the log holds a cookie decision's leaf");
  }
  if (receipt.channel_change || receipt.partner_block) {
    return fail("the receipt names a control's change, but the log holds a cookie decision's leaf");
  }
  const stated = receipt.cookie_decision;
  if (stated) {
    const mismatch = firstMismatch([
      ['decision_id', stated.decision_id, leaf.recordId],
      ['decided_at', stated.decided_at, leaf.time],
      ['configuration_id', stated.configuration_id, leaf.configurationId],
      ['configuration_version', stated.configuration_version, leaf.version],
      ['content_sha256', stated.content_sha256, leaf.contentSha256],
      ['method', stated.method, leaf.method],
      [
        'categories',
        stated.categories === undefined ? undefined : sortedJson(stated.categories),
        sortedJson(leaf.categories),
      ],
    ]);
    if (mismatch) return fail(`the receipt's ${mismatch} is not the one in the log`);
  }
  const opening = receipt.opening;
  if (!opening) return ok(false);
  if (
    !hasStrings(opening, ['visitor_id', 'subject_salt', 'evidence_salt', 'ip', 'origin', 'locale'])
  ) {
    return fail(
      "the receipt's opening is not a cookie decision's (visitor id, evidence and salts)",
    );
  }
  if (subjectCommitment(opening.subject_salt, opening.visitor_id) !== leaf.visitor) {
    return fail("the visitor id and salt do not open the leaf's visitor commitment");
  }
  const evidence = cookieEvidenceCommitment(opening.evidence_salt, {
    ip: opening.ip,
    userAgent: opening.user_agent,
    origin: opening.origin,
    locale: opening.locale,
  });
  if (evidence !== leaf.evidence) {
    return fail("the evidence and salt do not open the leaf's evidence commitment");
  }
  return ok(true);
}

/** The name of the first field the receipt states otherwise than the leaf. */
function firstMismatch(
  pairs: readonly (readonly [string, unknown, string | number])[],
): string | undefined {
  return pairs.find(([, stated, logged]) => stated !== undefined && stated !== logged)?.[0];
}

/**
 * Whether a receipt's opening has these string fields (and a user agent that is a string or
 * null): it comes from a file, and a commitment over a missing value would throw, not fail.
 */
function hasStrings<K extends string>(
  opening: object,
  keys: readonly K[],
): opening is Record<K, string> & { user_agent: string | null } {
  const fields = opening as Record<string, unknown>;
  const ua = fields.user_agent;
  return (
    keys.every((key) => typeof fields[key] === 'string') && (ua === null || typeof ua === 'string')
  );
}

/** Who made the record: an API key's id, or none and a back-office user's id. */
function hasActor(
  opening: object,
): opening is { api_key_id: string | null; user_id?: string | null } {
  const { api_key_id: key, user_id: user } = opening as Record<string, unknown>;
  if (typeof key === 'string') return user === undefined || user === null;
  return key === null && typeof user === 'string';
}

/** The channel the record came through, when the opening names one: a string, or absent. */
function hasVia(opening: object): opening is { via?: string } {
  const { via } = opening as Record<string, unknown>;
  return via === undefined || typeof via === 'string';
}

/** A category map as JSON with its keys sorted, so that two maps compare by content. */
function sortedJson(categories: Record<string, boolean>): string {
  if (typeof categories !== 'object' || categories === null) return String(categories);
  return JSON.stringify(Object.entries(categories).sort(([a], [b]) => (a < b ? -1 : 1)));
}
