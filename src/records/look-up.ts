import { type Actor, recordAudit } from '../audit-trail/index.js';
import { type Lapse, lapseOf } from '../decisions/index.js';
import { erasureSummary } from '../erasure/index.js';
import type { Executor } from '../platform/db.js';
import { nowIso } from '../platform/time.js';
import type { SubjectVault } from '../subjects/index.js';
import { findSubjectId } from '../subjects/index.js';
import { customerHistory, type LoggedDecisionRecord } from './history.js';
import { findTemplateStandings } from './repository.js';

/**
 * Where a customer stands on one template they decided on (the back-office's look-up), with
 * when their decision on the latest version lapses, when it is a `given` on a template with a
 * validity period.
 */
export type TemplateStanding = Awaited<ReturnType<typeof findTemplateStandings>>[number] & {
  lapse: Lapse | undefined;
};

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
 * Where a customer stands on each template they decided on, by the id the tenant's systems send
 * (the customer's own page): none for a customer the tenant has no record of.
 */
export async function customerStandings(
  db: Executor,
  vault: SubjectVault,
  tenantId: string,
  customerId: string,
): Promise<TemplateStanding[]> {
  const subjectId = await findSubjectId(db, vault, tenantId, customerId);
  const rows = subjectId ? await findTemplateStandings(db, tenantId, subjectId) : [];
  const now = nowIso();
  return rows.map((row) => ({
    ...row,
    lapse: lapseOf(row.decision_on_latest, row.decided_on_latest_at, row.validity_months, now),
  }));
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
  const [rows, history] = await Promise.all([
    subjectId ? findTemplateStandings(db, tenantId, subjectId) : [],
    subjectId ? customerHistory(db, vault, tenantId, subjectId, historyLimit) : [],
  ]);
  const now = nowIso();
  const standings = rows.map((row) => ({
    ...row,
    lapse: lapseOf(row.decision_on_latest, row.decided_on_latest_at, row.validity_months, now),
  }));
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
