import { sql } from 'kysely';
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

/**
 * A system's choices from `days[0].start` until `end`, counted by the day they fall in (the last
 * of `days` whose start they are at or after: the tenant's days, however long), region, variant,
 * method and categories chosen.
 */
export function countChoicesPerDay(
  db: Executor,
  tenantId: string,
  systemId: string,
  days: ReadonlyArray<{ day: string; start: string }>,
  end: string,
): Promise<
  Array<{
    day: string;
    region: string | null;
    variant: string | null;
    method: ChoiceMethod;
    categories: string;
    count: number | string | bigint;
  }>
> {
  const [first, ...rest] = days;
  if (!first) return Promise.resolve([]);
  // The day of a choice, as one CASE over the days' starts, so that a zone's day of 23 or 25
  // hours counts as it is; grouped outside, where PostgreSQL sees one column, not an expression.
  const last = sql`${days.at(-1)?.day}`;
  const day = sql<string>`cast(${
    rest.length === 0
      ? last
      : sql`case ${sql.join(
          rest.map((d, i) => sql`when decided_at < ${d.start} then ${days[i]?.day}`),
          sql` `,
        )} else ${last} end`
  } as text)`;
  const inPeriod = db
    .selectFrom('cookie_decisions')
    .select([day.as('day'), 'region', 'variant', 'method', 'categories'])
    .where('tenant_id', '=', tenantId)
    .where('system_id', '=', systemId)
    .where('decided_at', '>=', first.start)
    .where('decided_at', '<', end);
  return db
    .selectFrom(inPeriod.as('c'))
    .select(['c.day', 'c.region', 'c.variant', 'c.method', 'c.categories'])
    .select((eb) => eb.fn.countAll().as('count'))
    .groupBy(['c.day', 'c.region', 'c.variant', 'c.method', 'c.categories'])
    .execute();
}
