import { setTimeout as sleep } from 'node:timers/promises';
import { type ChannelChangeRow, findChannelChange } from '../channels/index.js';
import { presentDecision } from '../decisions/index.js';
import { findPartnerBlockChange, type PartnerBlockChangeRow } from '../partner-blocks/index.js';
import type { Db, Executor } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { formatTlogProof, inclusionPlan } from '../proof/index.js';
import { type DecisionWithTemplate, findCookieDecision, findDecision } from '../records/index.js';
import type { SubjectVault } from '../subjects/index.js';
import { type OpenedRecord, personalReader, type SealedRecord } from '../subjects/index.js';
import { findEntryByRecord, findLog, latestCheckpoint } from './repository.js';
import type {
  ChannelReceipt,
  CookieReceipt,
  LogProof,
  PartnerBlockReceipt,
  Receipt,
} from './schemas.js';
import { proofFrom } from './service.js';

export type ReceiptResult = { ready: true; receipt: Receipt } | { ready: false };
export type CookieReceiptResult = { ready: true; receipt: CookieReceipt } | { ready: false };
export type ChannelReceiptResult = { ready: true; receipt: ChannelReceipt } | { ready: false };
export type PartnerBlockReceiptResult =
  | { ready: true; receipt: PartnerBlockReceipt }
  | { ready: false };

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

/**
 * What every receipt carries, whatever record it proves: the record's leaf, its inclusion proof
 * under the latest checkpoint, and the same as tlog-proof text. Undefined while the leaf waits
 * for the integrator.
 */
async function logProofOf(
  db: Executor,
  tenantId: string,
  recordId: string,
): Promise<LogProof | undefined> {
  const entry = await findEntryByRecord(db, tenantId, recordId);
  const checkpoint = entry ? await latestCheckpoint(db, tenantId) : undefined;
  if (!entry || !checkpoint) return undefined;
  const log = await findLog(db, tenantId);
  const index = Number(entry.idx);
  const size = Number(checkpoint.size);
  const proof = await proofFrom(db, tenantId, inclusionPlan(index, size));
  return logProofText(entry.leaf, index, proof, checkpoint, log?.verifier_key ?? '');
}

/** A leaf's proof as every receipt states it: the hashes, and the same as tlog-proof text. */
export function logProofText(
  leaf: string,
  index: number,
  proof: readonly Uint8Array[],
  checkpoint: { size: number | string; note: string },
  verifierKey: string,
): LogProof {
  return {
    leaf,
    leaf_index: index,
    tree_size: Number(checkpoint.size),
    inclusion_proof: proof.map(base64),
    checkpoint: checkpoint.note,
    tlog_proof: formatTlogProof({
      index,
      inclusionProof: proof,
      checkpoint: checkpoint.note,
      extra: Buffer.from(leaf, 'utf8'),
    }),
    verifier_key: verifierKey,
  };
}

/**
 * A record's log proof and, unless its subject was erased, its personal fields opened: a receipt
 * still proves a record once its subject is erased, without whose it was. Undefined while the
 * record's leaf waits for the integrator.
 */
async function provenRecord(db: Db, vault: SubjectVault, tenantId: string, record: SealedRecord) {
  const proof = await logProofOf(db, tenantId, record.id);
  if (!proof) return undefined;
  const [opened] = await personalReader(db, vault, tenantId)([record]);
  return { proof, personal: openedOnly(opened) };
}

/** The decision's receipt, or `ready: false` while its leaf waits for the integrator. */
export async function receiptOf(
  db: Db,
  vault: SubjectVault,
  tenantId: string,
  decisionId: string,
): Promise<ReceiptResult> {
  const decision = await findDecision(db, tenantId, decisionId.toLowerCase());
  if (!decision) throw new AppError('notFound', { message: 'Decision not found.' });
  const proven = await provenRecord(db, vault, tenantId, decision);
  if (!proven) return { ready: false };
  return { ready: true, receipt: decisionReceipt(decision, proven.proof, proven.personal) };
}

/** A record's personal fields, as `personalReader` opens them; undefined once erased. */
export type OpenedPersonal = (OpenedRecord & { state: 'open' }) | undefined;

/** The receipt of a decision from its record, its log proof and its opened personal fields. */
export function decisionReceipt(
  decision: DecisionWithTemplate,
  proof: LogProof,
  personal: OpenedPersonal,
): Receipt {
  return {
    decision: {
      ...presentDecision(decision, '', decision.template_code),
      customer_id: personal?.personal.customer_id ?? null,
    },
    ...proof,
    opening: personal
      ? {
          customer_id: personal.personal.customer_id,
          subject_salt: personal.salt,
          evidence_salt: decision.evidence_salt ?? '',
          ip: personal.personal.ip,
          user_agent: personal.personal.user_agent,
          api_key_id: decision.api_key_id,
          ...viaOf(personal),
        }
      : null,
  };
}

/**
 * A website visitor's cookie decision's receipt, as a decision's: the same proof, the choice its
 * leaf commits to, and what opens the visitor and evidence commitments (the visitor is a subject
 * of their own, their id sealed in the record as a customer's is).
 */
export async function cookieReceiptOf(
  db: Db,
  vault: SubjectVault,
  tenantId: string,
  decisionId: string,
): Promise<CookieReceiptResult> {
  const decision = await findCookieDecision(db, tenantId, decisionId.toLowerCase());
  if (!decision) throw new AppError('notFound', { message: 'Cookie decision not found.' });
  const proven = await provenRecord(db, vault, tenantId, decision);
  if (!proven) return { ready: false };
  const { proof, personal } = proven;
  return {
    ready: true,
    receipt: {
      cookie_decision: {
        decision_id: decision.id,
        system_id: decision.system_id,
        configuration_id: decision.configuration_id,
        configuration_version: Number(decision.configuration_version),
        content_sha256: decision.content_sha256,
        method: decision.method,
        categories: JSON.parse(decision.categories) as Record<string, boolean>,
        decided_at: decision.decided_at,
        visitor_id: personal?.personal.customer_id ?? null,
      },
      ...proof,
      opening: personal
        ? {
            visitor_id: personal.personal.customer_id,
            subject_salt: personal.salt,
            evidence_salt: decision.evidence_salt,
            ip: personal.personal.ip,
            user_agent: personal.personal.user_agent,
            origin: decision.origin,
            locale: decision.locale,
          }
        : null,
    },
  };
}

/**
 * A customer's channel change's receipt, as a decision's: the same proof, the change its leaf
 * commits to, and the same opening (the customer, and the evidence a decision keeps).
 */
export async function channelReceiptOf(
  db: Db,
  vault: SubjectVault,
  tenantId: string,
  changeId: string,
): Promise<ChannelReceiptResult> {
  const change = await findChannelChange(db, tenantId, changeId.toLowerCase());
  if (!change) throw new AppError('notFound', { message: 'Channel change not found.' });
  const proven = await provenRecord(db, vault, tenantId, change);
  if (!proven) return { ready: false };
  return { ready: true, receipt: channelReceipt(change, proven.proof, proven.personal) };
}

/** The receipt of a channel change from its record, its log proof and its opened personal fields. */
export function channelReceipt(
  change: ChannelChangeRow,
  proof: LogProof,
  personal: OpenedPersonal,
): ChannelReceipt {
  return {
    channel_change: {
      change_id: change.id,
      product_code: change.product_code,
      channel: change.channel,
      blocked: Number(change.blocked) === 1,
      changed_at: change.changed_at,
      customer_id: personal?.personal.customer_id ?? null,
    },
    ...proof,
    opening: controlOpening(change, personal),
  };
}

/**
 * A partner block's change's receipt, as a channel change's: the same proof, the change its
 * leaf commits to, and the same opening.
 */
export async function partnerBlockReceiptOf(
  db: Db,
  vault: SubjectVault,
  tenantId: string,
  changeId: string,
): Promise<PartnerBlockReceiptResult> {
  const change = await findPartnerBlockChange(db, tenantId, changeId.toLowerCase());
  if (!change) throw new AppError('notFound', { message: 'Partner block change not found.' });
  const proven = await provenRecord(db, vault, tenantId, change);
  if (!proven) return { ready: false };
  return { ready: true, receipt: partnerBlockReceipt(change, proven.proof, proven.personal) };
}

/** The receipt of a partner block's change from its record, its log proof and its opening. */
export function partnerBlockReceipt(
  change: PartnerBlockChangeRow,
  proof: LogProof,
  personal: OpenedPersonal,
): PartnerBlockReceipt {
  return {
    partner_block: {
      change_id: change.id,
      decision_id: change.decision_id,
      partner_code: change.partner_code,
      blocked: Number(change.blocked) === 1,
      changed_at: change.changed_at,
      customer_id: personal?.personal.customer_id ?? null,
    },
    ...proof,
    opening: controlOpening(change, personal),
  };
}

/**
 * What opens a control's leaf (a channel change, a partner block): the customer and the
 * evidence, a back-office user's id when one made it; null once the customer was erased.
 */
function controlOpening(
  change: {
    evidence_salt: string;
    api_key_id: string | null;
    user_id: string | null;
  },
  personal: OpenedPersonal,
): ChannelReceipt['opening'] {
  if (!personal) return null;
  return {
    customer_id: personal.personal.customer_id,
    subject_salt: personal.salt,
    evidence_salt: change.evidence_salt,
    ip: personal.personal.ip,
    user_agent: personal.personal.user_agent,
    api_key_id: change.api_key_id,
    ...(change.user_id ? { user_id: change.user_id } : {}),
    ...viaOf(personal),
  };
}

/**
 * The channel a record came through, as its opening names it: only for one made through the
 * preference centre, so that every other opening stays as it was.
 */
function viaOf(personal: NonNullable<OpenedPersonal>): { via?: 'preference-centre' } {
  return personal.personal.via === 'preference-centre' ? { via: 'preference-centre' } : {};
}

/** A record's opened personal fields, or undefined once its subject was erased. */
export function openedOnly(opened: OpenedRecord | undefined): OpenedPersonal {
  return opened?.state === 'open' ? opened : undefined;
}

/** How long a request that asks to wait for its receipt waits at most. */
const receiptWaitMs = 5_000;

/**
 * A receipt (or anything that waits for leaves) from `read`; with `wait`, holds up to 5 s for
 * the integrator to append its leaves.
 */
export async function awaitReady<T extends { ready: boolean }>(
  read: () => Promise<T>,
  kick: () => Promise<void>,
  wait: boolean,
): Promise<T> {
  let result = await read();
  const deadline = Date.now() + receiptWaitMs;
  while (!result.ready && wait && Date.now() < deadline) {
    await Promise.race([kick(), sleep(250)]);
    result = await read();
  }
  return result;
}

/** The decision's receipt; with `wait`, holds up to 5 s for the integrator to append its leaf. */
export function awaitReceipt(
  db: Db,
  vault: SubjectVault,
  kick: () => Promise<void>,
  tenantId: string,
  decisionId: string,
  wait: boolean,
): Promise<ReceiptResult> {
  return awaitReady(() => receiptOf(db, vault, tenantId, decisionId), kick, wait);
}

/** The cookie decision's receipt, waited for as a decision's. */
export function awaitCookieReceipt(
  db: Db,
  vault: SubjectVault,
  kick: () => Promise<void>,
  tenantId: string,
  decisionId: string,
  wait: boolean,
): Promise<CookieReceiptResult> {
  return awaitReady(() => cookieReceiptOf(db, vault, tenantId, decisionId), kick, wait);
}

/** The channel change's receipt, waited for as a decision's. */
export function awaitChannelReceipt(
  db: Db,
  vault: SubjectVault,
  kick: () => Promise<void>,
  tenantId: string,
  changeId: string,
  wait: boolean,
): Promise<ChannelReceiptResult> {
  return awaitReady(() => channelReceiptOf(db, vault, tenantId, changeId), kick, wait);
}

export function awaitPartnerBlockReceipt(
  db: Db,
  vault: SubjectVault,
  kick: () => Promise<void>,
  tenantId: string,
  changeId: string,
  wait: boolean,
): Promise<PartnerBlockReceiptResult> {
  return awaitReady(() => partnerBlockReceiptOf(db, vault, tenantId, changeId), kick, wait);
}
