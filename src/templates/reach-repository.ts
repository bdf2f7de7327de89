/**
 * What publishing or archiving a template reaches: the customers who decided on it, read from
 * their states (the decisions feature's tables) here, so that the template's acts need nothing
 * of the features above them.
 */
import type { Executor } from '../platform/db.js';

/** Customers with at least one decision on the release (on any locale's variant of it). */
export async function countCustomersOnVersion(
  db: Executor,
  tenantId: string,
  releaseId: string,
): Promise<number> {
  const { count } = await db
    .selectFrom('customer_version_states as cv')
    .innerJoin('template_versions as v', (j) =>
      j.onRef('v.tenant_id', '=', 'cv.tenant_id').onRef('v.id', '=', 'cv.consent_version_id'),
    )
    .select((eb) => eb.fn.count<number | string>('cv.subject_id').distinct().as('count'))
    .where('cv.tenant_id', '=', tenantId)
    .where('v.release_id', '=', releaseId)
    .executeTakeFirstOrThrow();
  return Number(count);
}

/** Customers with at least one decision, per template id. */
export function countCustomersPerTemplate(db: Executor, tenantId: string) {
  return db
    .selectFrom('customer_template_states')
    .select((eb) => ['template_id', eb.fn.countAll<number | string>().as('count')])
    .where('tenant_id', '=', tenantId)
    .groupBy('template_id')
    .execute();
}
