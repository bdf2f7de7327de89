import { type Actor, recordAudit } from '../audit-trail/index.js';
import type { Executor } from '../platform/db.js';
import type { ReadOn } from '../platform/replicas.js';
import type { SubjectVault } from '../subjects/index.js';
import { findDecisionEvidence, findEvidencePageNewestFirst } from './evidence-repository.js';
import {
  askedForAudit,
  type DecisionFilter,
  type LoggedDecisionRecord,
  opener,
  storeFilter,
} from './history.js';
import type { HistoryPosition } from './repository.js';

/** Decisions shown per page of the Decisions list. */
export const decisionsPerPage = 50;

/** A page of the Decisions list, and where the next (older) one starts, if there is one. */
export interface DecisionsPage {
  decisions: LoggedDecisionRecord[];
  next: HistoryPosition | undefined;
}

const logged = <T extends { log_index: number | string | null }>(row: T) => ({
  ...row,
  log_index: row.log_index === null ? null : Number(row.log_index),
});

/**
 * A page of the tenant's decisions across customers, newest first, that pass the filter. The
 * page shows customers' ids: each is recorded (`decisions.browsed`, with the filter as asked, a
 * customer id as the customer's subject id) on `db`, the primary; the page itself is read
 * through `readOn`, on a replica that has replayed that record (docs/scaling.md, "Read
 * replicas").
 */
export async function browseDecisions(
  db: Executor,
  readOn: ReadOn,
  vault: SubjectVault,
  tenantId: string,
  filter: DecisionFilter,
  before: HistoryPosition | undefined,
  asked: Record<string, string>,
  actor: Actor,
): Promise<DecisionsPage> {
  const stored = await storeFilter(db, vault, tenantId, filter);
  await recordAudit(db, {
    ...actor,
    action: 'decisions.browsed',
    details: askedForAudit(asked, stored.subjectId),
  });
  const { filter: passing } = stored;
  if (!passing) return { decisions: [], next: undefined };
  const { rows, opened } = await readOn(async (on) => {
    const rows = await findEvidencePageNewestFirst(
      on,
      tenantId,
      passing,
      before,
      decisionsPerPage + 1,
    );
    return { rows, opened: await opener(vault, tenantId)(on, rows.slice(0, decisionsPerPage)) };
  });
  const decisions = opened.map(logged);
  const last = decisions.at(-1);
  return {
    decisions,
    next:
      rows.length > decisionsPerPage && last
        ? { decidedAt: last.decided_at, id: last.decision_id }
        : undefined,
  };
}

/** One decision with its evidence and the text the customer was shown. */
export type DecisionEvidence = LoggedDecisionRecord & {
  content_html: string;
  version_id: string;
  template_name: string;
  allow_reconsent: number;
  api_key_id: string | null;
};

/** One decision of the tenant, with its evidence; recorded (`decision.viewed`). Undefined when none. */
export async function decisionEvidence(
  db: Executor,
  vault: SubjectVault,
  tenantId: string,
  decisionId: string,
  actor: Actor,
): Promise<DecisionEvidence | undefined> {
  const row = await findDecisionEvidence(db, tenantId, decisionId);
  if (!row) return undefined;
  await recordAudit(db, { ...actor, action: 'decision.viewed', target: decisionId });
  const [opened] = await opener(vault, tenantId)(db, [row]);
  return opened && logged(opened);
}
