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

/** How many choices on a configuration each variant had, by the categories chosen. */
export function countChoicesPerVariant(
  db: Executor,
  tenantId: string,
  configurationId: string,
): Promise<Array<{ variant: string | null; categories: string; count: number | string | bigint }>> {
  return db
    .selectFrom('cookie_decisions')
    .select(['variant', 'categories'])
    .select((eb) => eb.fn.countAll().as('count'))
    .where('tenant_id', '=', tenantId)
    .where('configuration_id', '=', configurationId)
    .groupBy(['variant', 'categories'])
    .execute();
}
