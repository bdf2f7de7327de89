import { partnersOfRelease } from '../partners/index.js';
import type { Executor } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import type { SubjectVault } from '../subjects/index.js';
import { findLiveSubjectRow } from '../subjects/index.js';
import type { PartnerBlockContext, PartnerBlockState } from './blocks.js';
import type { PartnerBlockOutcome, PartnerBlockWriter } from './record-changes.js';
import {
  findDecisionOfRelease,
  findDecisionStates,
  findPartnerBlockChangeRow,
} from './repository.js';
import type { PartnerBlockChangeRow } from './table.js';

/** A listed partner of a decision, with its block. */
export interface DecisionPartner extends PartnerBlockState {
  name: string;
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
  if (!decision || !subject || subject.id !== decision.subject_id) {
    throw new AppError('notFound', { message: 'Decision not found.' });
  }
  const partners = await partnersOfRelease(db, tenantId, decision.release_id);
  return { decision, subject, partners };
}

/**
 * Blocks or allows again one partner on one of a customer's decisions, the API's and the
 * back-office's use case: the decision must be the customer's and its release must list the
 * partner (`404 1004` otherwise); the writer records the change under the customer's lock, or
 * nothing when the partner already has that state on the decision.
 */
export async function setPartnerBlock(
  db: Executor,
  writer: PartnerBlockWriter,
  vault: SubjectVault,
  context: PartnerBlockContext,
  target: { customerId: string; decisionId: string; partnerCode: string },
  blocked: boolean,
): Promise<PartnerBlockOutcome> {
  const { decision, subject, partners } = await customersDecision(
    db,
    vault,
    context.tenantId,
    target.customerId,
    target.decisionId,
  );
  if (!partners.some((p) => p.code === target.partnerCode)) {
    throw new AppError('notFound', { message: "The decision's version lists no such partner." });
  }
  return writer.write({
    ...context,
    customerId: target.customerId,
    lookup: vault.lookup(context.tenantId, target.customerId),
    subjectId: subject.id,
    decisionId: decision.id,
    partnerCode: target.partnerCode,
    blocked,
  });
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
  const { decision, partners } = await customersDecision(
    db,
    vault,
    tenantId,
    customerId,
    decisionId,
  );
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

/** One of the tenant's partner block changes, by id: what its receipt proves. */
export function findPartnerBlockChange(
  db: Executor,
  tenantId: string,
  id: string,
): Promise<PartnerBlockChangeRow | undefined> {
  return findPartnerBlockChangeRow(db, tenantId, id);
}
