import { sql } from 'kysely';
import type { Executor } from '../platform/db.js';
import { resolveIdType, sealedColumn, stateOfTenantRow } from '../platform/id-type.js';

/**
 * A decision of the tenant with its customer's subject (and its sealed fields, which open the
 * customer id), the release it was made on, and what a block needs to know of whether it still
 * stands: its value and time, the customer's latest decision on its template, and the
 * template's validity period.
 */
export async function findDecisionOfRelease(db: Executor, tenantId: string, decisionId: string) {
  await resolveIdType(db);
  return db
    .selectFrom('decisions as d')
    .innerJoin('template_versions as v', (join) =>
      join.onRef('v.tenant_id', '=', 'd.tenant_id').onRef('v.id', '=', 'd.consent_version_id'),
    )
    .innerJoin('templates as t', (join) =>
      join.onRef('t.tenant_id', '=', 'd.tenant_id').onRef('t.id', '=', 'd.template_id'),
    )
    .leftJoin('customer_template_states as cts', (join) =>
      join
        .on(stateOfTenantRow(db, 'cts', sql.ref('d.tenant_id')))
        .onRef('cts.subject_id', '=', 'd.subject_id')
        .onRef('cts.template_id', '=', 'd.template_id'),
    )
    .select([
      'd.id',
      'd.subject_id',
      sealedColumn(db, 'd.personal').as('personal'),
      'd.decision',
      'd.decided_at',
      'v.release_id',
      't.validity_months',
      'cts.last_decision_id',
    ])
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
