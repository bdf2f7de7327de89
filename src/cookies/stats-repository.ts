import type { Executor } from '../platform/db.js';
import type { ChoiceMethod } from './banner-config.js';

/** How many choices of each method each system had from `since` on. */
export function countChoicesPerMethod(
  db: Executor,
  tenantId: string,
  since: string,
): Promise<Array<{ system_id: string; method: ChoiceMethod; count: number | string | bigint }>> {
  return db
    .selectFrom('cookie_decisions')
    .select(['system_id', 'method'])
    .select((eb) => eb.fn.countAll().as('count'))
    .where('tenant_id', '=', tenantId)
    .where('decided_at', '>=', since)
    .groupBy(['system_id', 'method'])
    .execute();
}
