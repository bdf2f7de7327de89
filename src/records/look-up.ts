import { type Actor, recordAudit } from '../audit-trail/index.js';
import { erasureSummary } from '../erasure/index.js';
import type { Executor } from '../platform/db.js';
import type { SubjectVault } from '../subjects/index.js';
import { findSubjectId } from '../subjects/index.js';
import { customerHistory, type LoggedDecisionRecord } from './history.js';
import { findTemplateStandings } from './repository.js';

/** Where a customer stands on one template they decided on (the back-office's look-up). */
export type TemplateStanding = Awaited<ReturnType<typeof findTemplateStandings>>[number];

/** What the tenant's erasures left: said beside a look-up that finds nothing. */
export type ErasureTotals = Awaited<ReturnType<typeof erasureSummary>>;

export interface CustomerLookUp {
  standings: TemplateStanding[];
  /** Newest first, at most the limit asked for. */
  history: LoggedDecisionRecord[];
  /** Zeros when the customer has decisions (nothing to explain). */
  erasures: ErasureTotals;
}

/**
 * A customer's record as a person in the back-office sees it, by the id the tenant's systems
 * send. Looking is itself recorded, under the record's random id: the audit log keeps no
 * customer id, which an erasure could not reach.
 */
export async function lookUpCustomer(
  db: Executor,
  vault: SubjectVault,
  tenantId: string,
  customerId: string,
  historyLimit: number,
  actor: Actor,
): Promise<CustomerLookUp> {
  const subjectId = await findSubjectId(db, vault, tenantId, customerId);
  const [standings, history] = await Promise.all([
    subjectId ? findTemplateStandings(db, tenantId, subjectId) : [],
    subjectId ? customerHistory(db, vault, tenantId, subjectId, historyLimit) : [],
  ]);
  const erasures =
    history.length === 0
      ? await erasureSummary(db, tenantId)
      : { customers: 0, decisions: 0, latestAt: null };
  await recordAudit(db, {
    ...actor,
    action: 'customer.looked_up',
    target: subjectId ?? null,
    details: { decisions: history.length },
  });
  return { standings, history, erasures };
}
