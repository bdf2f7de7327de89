import type { Executor, Trx } from '../platform/db.js';
import type { CookieDecisionRow, CookieDecisionsTable } from './table.js';

/** The choices of a system already recorded under these event ids (a retry's first record). */
export async function findByEventIds(
  db: Executor,
  tenantId: string,
  systemId: string,
  eventIds: readonly string[],
): Promise<
  Pick<
    CookieDecisionRow,
    'id' | 'event_id' | 'subject_id' | 'method' | 'categories' | 'decided_at'
  >[]
> {
  if (eventIds.length === 0) return [];
  return db
    .selectFrom('cookie_decisions')
    .select(['id', 'event_id', 'subject_id', 'method', 'categories', 'decided_at'])
    .where('tenant_id', '=', tenantId)
    .where('system_id', '=', systemId)
    .where('event_id', 'in', [...eventIds])
    .execute();
}

/** Appends a batch's choices (append-only: never updated but by an erasure). */
export async function insertCookieDecisions(
  trx: Trx,
  rows: readonly CookieDecisionsTable[],
): Promise<void> {
  // 16 columns: 60 rows a statement stays under SQLite's 999 parameters.
  for (let start = 0; start < rows.length; start += 60) {
    await trx
      .insertInto('cookie_decisions')
      .values(rows.slice(start, start + 60))
      .execute();
  }
}

/** A page of a tenant's choices (of one system, or all), oldest first, after a position. */
export function listCookieDecisionRows(
  db: Executor,
  tenantId: string,
  filter: { systemId?: string; after?: { decided_at: string; id: string } },
  limit: number,
): Promise<(CookieDecisionRow & { scope: string })[]> {
  let query = db
    .selectFrom('cookie_decisions as d')
    .innerJoin('cookie_systems as s', (j) =>
      j.onRef('s.tenant_id', '=', 'd.tenant_id').onRef('s.id', '=', 'd.system_id'),
    )
    .selectAll('d')
    .select('s.scope')
    .where('d.tenant_id', '=', tenantId);
  if (filter.systemId !== undefined) query = query.where('d.system_id', '=', filter.systemId);
  const after = filter.after;
  if (after) {
    query = query.where((eb) =>
      eb.or([
        eb('d.decided_at', '>', after.decided_at),
        eb.and([eb('d.decided_at', '=', after.decided_at), eb('d.id', '>', after.id)]),
      ]),
    );
  }
  return query.orderBy('d.decided_at').orderBy('d.id').limit(limit).execute();
}

/** How many choices the tenant keeps under this subject (a visitor's). */
export async function countChoicesOfSubject(
  db: Executor,
  tenantId: string,
  subjectId: string,
): Promise<number> {
  const { count } = await db
    .selectFrom('cookie_decisions')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('tenant_id', '=', tenantId)
    .where('subject_id', '=', subjectId)
    .executeTakeFirstOrThrow();
  return Number(count);
}
