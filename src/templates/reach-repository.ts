/**
 * What publishing or archiving a template reaches: the customers who decided on it, read from
 * their states (the decisions feature's tables) here, so that the template's acts need nothing
 * of the features above them.
 */
import type { Executor } from '../platform/db.js';
import { resolveIdType, stateOfTenantRow } from '../platform/id-type.js';

/** Customers with at least one decision on the release (on any locale's variant of it). */
export async function countCustomersOnVersion(
  db: Executor,
  tenantId: string,
  releaseId: string,
): Promise<number> {
  await resolveIdType(db);
  const { count } = await db
    .selectFrom('customer_version_states as cv')
    .innerJoin('template_versions as v', (j) =>
      j.on('v.tenant_id', '=', tenantId).onRef('v.id', '=', 'cv.consent_version_id'),
    )
    .select((eb) => eb.fn.count<number | string>('cv.subject_id').distinct().as('count'))
    .where(stateOfTenantRow(db, 'cv', tenantId))
    .where('v.release_id', '=', releaseId)
    .executeTakeFirstOrThrow();
  return Number(count);
}

/**
 * Customers with at least one decision, per template id: the tenant's states are those of its
 * templates (its own column, where the states have one, is named too: SQLite's key leads with it
 * until 0073).
 */
export async function countCustomersPerTemplate(db: Executor, tenantId: string) {
  await resolveIdType(db);
  return db
    .selectFrom('customer_template_states as s')
    .innerJoin('templates as t', (j) =>
      j.on('t.tenant_id', '=', tenantId).onRef('t.id', '=', 's.template_id'),
    )
    .select((eb) => ['s.template_id', eb.fn.countAll<number | string>().as('count')])
    .where(stateOfTenantRow(db, 's', tenantId))
    .groupBy('s.template_id')
    .execute();
}
