import stringify from 'safe-stable-stringify';
import type { Actor } from '../audit-trail/index.js';
import { type DecisionValue, lapseOf } from '../decisions/index.js';
import { partnersOfRelease } from '../partners/index.js';
import type { Executor } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { sha256Hex } from '../platform/hashing.js';
import { nowIso } from '../platform/time.js';
import { findIdempotencyRecords, replayOf } from '../record-kinds/index.js';
import type { SubjectVault } from '../subjects/index.js';
import { findLiveSubjectRow, personalReader } from '../subjects/index.js';
import type {
  PartnerBlockContext,
  PartnerBlockOutcome,
  PartnerBlockState,
  PartnerBlockWriter,
} from './blocks.js';
import { findChangesAsOf, findDecisionOfRelease, findDecisionStates } from './repository.js';

/** A listed partner of a decision, with its block. */
export interface DecisionPartner extends PartnerBlockState {
  name: string;
}

const decisionNotFound = () => new AppError('notFound', { message: 'Decision not found.' });

/** What says whether a decision is in force, as `findDecisionOfRelease` reads it. */
interface StandingOf {
  id: string;
  decision: DecisionValue;
  decided_at: string;
  validity_months: number | null;
  last_decision_id: string | null;
}

/** The customer's latest decision on its template, a `given`, not lapsed now. */
function inForce(decision: StandingOf): boolean {
  const lapse = lapseOf(decision.decision, decision.decided_at, decision.validity_months, nowIso());
  return (
    decision.last_decision_id === decision.id &&
    decision.decision === 'given' &&
    lapse?.expired !== true
  );
}

/**
 * A block is an instruction about a consent in force: the decision must be the customer's latest
 * on its template, a `given`, not lapsed. On a withdrawn, rejected, lapsed or superseded decision
 * nothing is shared any more, so a change there would record an instruction about nothing:
 * `409 1005`, checked when the request arrives (docs/partners.md). A retry whose key already
 * answered replays that answer, as every keyed request does.
 */
async function mustStand(
  db: Executor,
  decision: StandingOf,
  keyed?: { tenantId: string; key: string; lookup: string; requestHash: string },
): Promise<void> {
  if (inForce(decision)) return;
  if (keyed) {
    const [stored] = await findIdempotencyRecords(db, [
      { tenant_id: keyed.tenantId, key: keyed.key },
    ]);
    const job = { customer: { lookup: keyed.lookup }, requestHash: keyed.requestHash };
    if (replayOf(job, stored)) return;
  }
  throw new AppError('conflict', {
    message:
      "The decision is no longer in force: partners are blocked on the customer's current consent.",
  });
}

/**
 * The customer's decision and the partners its release lists: `404 1004` for a decision that is
 * not the tenant's, or not this customer's (an erased customer has none any more).
 */
async function customersDecision(
  db: Executor,
  vault: SubjectVault,
  tenantId: string,
  customerId: string,
  decisionId: string,
) {
  const decision = await findDecisionOfRelease(db, tenantId, decisionId.toLowerCase());
  const subject = decision
    ? await findLiveSubjectRow(db, tenantId, vault.lookup(tenantId, customerId))
    : undefined;
  if (!decision || !subject || subject.id !== decision.subject_id) throw decisionNotFound();
  return decision;
}

/**
 * Blocks or allows again one partner on one of a customer's decisions, the API's use case: the
 * decision must be the customer's and its release must list the partner (`404 1004` otherwise);
 * the writer records the change under the customer's lock, or nothing when the partner already
 * has that state on the decision.
 */
export async function setPartnerBlock(
  db: Executor,
  writer: PartnerBlockWriter,
  vault: SubjectVault,
  context: PartnerBlockContext,
  target: { customerId: string; decisionId: string; partnerCode: string },
  blocked: boolean,
  idempotencyKey?: string,
): Promise<PartnerBlockOutcome> {
  const decision = await customersDecision(
    db,
    vault,
    context.tenantId,
    target.customerId,
    target.decisionId,
  );
  await mustStand(
    db,
    decision,
    idempotencyKey === undefined
      ? undefined
      : {
          tenantId: context.tenantId,
          key: idempotencyKey,
          lookup: vault.lookup(context.tenantId, target.customerId),
          requestHash: partnerRequestHash({ ...target, blocked }),
        },
  );
  return writeBlock(db, writer, vault, context, {
    ...target,
    decisionId: decision.id,
    subjectId: decision.subject_id,
    releaseId: decision.release_id,
    blocked,
    ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
  });
}

async function writeBlock(
  db: Executor,
  writer: PartnerBlockWriter,
  vault: SubjectVault,
  context: PartnerBlockContext,
  target: {
    customerId: string;
    decisionId: string;
    subjectId: string;
    releaseId: string;
    partnerCode: string;
    blocked: boolean;
    idempotencyKey?: string;
  },
): Promise<PartnerBlockOutcome> {
  const partners = await partnersOfRelease(db, context.tenantId, target.releaseId);
  if (!partners.some((p) => p.code === target.partnerCode)) {
    throw new AppError('notFound', { message: "The decision's version lists no such partner." });
  }
  return writer.write({
    ...context,
    ...(target.idempotencyKey === undefined ? {} : { idempotencyKey: target.idempotencyKey }),
    customerId: target.customerId,
    lookup: vault.lookup(context.tenantId, target.customerId),
    subjectId: target.subjectId,
    target: { decision_id: target.decisionId, partner_code: target.partnerCode },
    blocked: target.blocked,
    requestHash: partnerRequestHash(target),
  });
}

/**
 * The hash an idempotency key is checked against: the request's method, path and body, as a
 * channel change's, so that a key first used for another request is refused here.
 */
function partnerRequestHash(target: {
  customerId: string;
  decisionId: string;
  partnerCode: string;
  blocked: boolean;
}): string {
  const { customerId, decisionId, partnerCode, blocked } = target;
  const path = `/api/v1/customers/${encodeURIComponent(customerId)}/consents/decisions/${decisionId}/partners/${partnerCode}`;
  return sha256Hex(stringify({ method: 'PUT', path, body: { blocked } }) ?? '');
}

/**
 * The back-office's use case: a user blocks or allows a partner on a decision they opened. The
 * customer is the decision's own (opened with their key; an erased customer's decision takes no
 * block, `404 1004`); the change carries the user as its evidence, and the audit log names them.
 */
export async function setPartnerBlockByUser(
  db: Executor,
  writer: PartnerBlockWriter,
  vault: SubjectVault,
  context: PartnerBlockContext & { userId: string },
  audit: Actor,
  target: { decisionId: string; partnerCode: string },
  blocked: boolean,
): Promise<PartnerBlockOutcome> {
  const decision = await findDecisionOfRelease(db, context.tenantId, target.decisionId);
  const [opened] = decision ? await personalReader(db, vault, context.tenantId)([decision]) : [];
  if (!decision || opened?.state !== 'open') throw decisionNotFound();
  await mustStand(db, decision);
  // The change and its audit entry are written in one transaction (the kind's, by the writer).
  return writeBlock(
    db,
    writer,
    vault,
    { ...context, auditedAs: audit },
    {
      customerId: opened.personal.customer_id,
      decisionId: decision.id,
      subjectId: decision.subject_id,
      releaseId: decision.release_id,
      partnerCode: target.partnerCode,
      blocked,
    },
  );
}

/**
 * Every partner the decision's release lists, by code: blocked or not, and since when. A
 * release that lists none answers an empty list.
 */
export async function listPartnerBlocks(
  db: Executor,
  vault: SubjectVault,
  tenantId: string,
  customerId: string,
  decisionId: string,
): Promise<DecisionPartner[]> {
  const decision = await customersDecision(db, vault, tenantId, customerId, decisionId);
  return partnersOfDecision(db, tenantId, decision);
}

/**
 * The same list for the back-office's page of a decision (the tenant's, opened by a user), and
 * whether the decision is in force (only then may its partners be blocked or allowed).
 */
export async function listDecisionPartners(
  db: Executor,
  tenantId: string,
  decisionId: string,
): Promise<{ partners: DecisionPartner[]; inForce: boolean }> {
  const decision = await findDecisionOfRelease(db, tenantId, decisionId);
  return decision
    ? { partners: await partnersOfDecision(db, tenantId, decision), inForce: inForce(decision) }
    : { partners: [], inForce: false };
}

async function partnersOfDecision(
  db: Executor,
  tenantId: string,
  decision: { id: string; release_id: string },
): Promise<DecisionPartner[]> {
  const partners = await partnersOfRelease(db, tenantId, decision.release_id);
  const states = new Map(
    (await findDecisionStates(db, tenantId, decision.id)).map((s) => [s.partner_code, s]),
  );
  return partners.map((partner): DecisionPartner => {
    const state = states.get(partner.code);
    return {
      partner_code: partner.code,
      name: partner.name,
      blocked: Number(state?.blocked ?? 0) === 1,
      since: state?.since ?? null,
      record_id: state?.change_id ?? null,
    };
  });
}

/**
 * The partners blocked on each of these decisions as they stood at `at` (an instant as stored:
 * UTC, milliseconds): each decision's partner codes, sorted, whose latest change at or before
 * `at` blocked them. A decision with none blocked then is absent.
 */
export async function blockedPartnersAsOf(
  db: Executor,
  tenantId: string,
  decisionIds: readonly string[],
  at: string,
): Promise<Map<string, string[]>> {
  const latest = new Map<string, Map<string, boolean>>();
  for (let start = 0; start < decisionIds.length; start += 500) {
    const chunk = decisionIds.slice(start, start + 500);
    for (const change of await findChangesAsOf(db, tenantId, chunk, at)) {
      const partners = latest.get(change.decision_id) ?? new Map<string, boolean>();
      partners.set(change.partner_code, Number(change.blocked) === 1);
      latest.set(change.decision_id, partners);
    }
  }
  const blocked = new Map<string, string[]>();
  for (const [decisionId, partners] of latest) {
    const codes = [...partners].filter(([, isBlocked]) => isBlocked).map(([code]) => code);
    if (codes.length > 0) blocked.set(decisionId, codes.sort());
  }
  return blocked;
}

/** Whether a decision's version lists any partner (then its answers say which are blocked). */
export async function decisionListsPartners(
  db: Executor,
  tenantId: string,
  decisionId: string,
): Promise<boolean> {
  const decision = await findDecisionOfRelease(db, tenantId, decisionId);
  return (
    decision !== undefined &&
    (await partnersOfRelease(db, tenantId, decision.release_id)).length > 0
  );
}
