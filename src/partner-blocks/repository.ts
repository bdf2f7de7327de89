import type { Executor } from '../platform/db.js';

/**
 * A decision of the tenant with its customer's subject (and its sealed fields, which open the
 * customer id) and the release it was made on.
 */
export function findDecisionOfRelease(db: Executor, tenantId: string, decisionId: string) {
  return db
    .selectFrom('decisions as d')
    .innerJoin('template_versions as v', (join) =>
      join.onRef('v.tenant_id', '=', 'd.tenant_id').onRef('v.id', '=', 'd.consent_version_id'),
    )
    .select(['d.id', 'd.subject_id', 'd.personal', 'v.release_id'])
    .where('d.tenant_id', '=', tenantId)
    .where('d.id', '=', decisionId)
    .executeTakeFirst();
}

/** A decision's states, every partner ever blocked or allowed again on it. */
export function findDecisionStates(db: Executor, tenantId: string, decisionId: string) {
  return db
    .selectFrom('partner_block_states')
    .select(['partner_code', 'blocked', 'change_id', 'since'])
    .where('tenant_id', '=', tenantId)
    .where('decision_id', '=', decisionId)
    .execute();
}

/** The changes of these decisions made at or before `at`, oldest first. */
export function findChangesAsOf(
  db: Executor,
  tenantId: string,
  decisionIds: readonly string[],
  at: string,
) {
  return db
    .selectFrom('partner_block_changes')
    .select(['decision_id', 'partner_code', 'blocked'])
    .where('tenant_id', '=', tenantId)
    .where('decision_id', 'in', decisionIds)
    .where('changed_at', '<=', at)
    .orderBy('changed_at')
    .orderBy('id')
    .execute();
}
