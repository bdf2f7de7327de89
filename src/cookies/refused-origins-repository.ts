import type { Executor } from '../platform/db.js';

/** The origins counted for a system so far (the other bucket, `''`, among them). */
export async function findRefusedOriginNames(
  db: Executor,
  tenantId: string,
  systemId: string,
): Promise<string[]> {
  const rows = await db
    .selectFrom('cookie_refused_origins')
    .select('origin')
    .where('tenant_id', '=', tenantId)
    .where('system_id', '=', systemId)
    .execute();
  return rows.map((r) => r.origin);
}

/**
 * Adds refusals to an origin's count, the row made at its first; the last time seen only moves
 * forward (two instances may add out of order). One statement on both stores.
 */
export function addRefusals(
  db: Executor,
  row: {
    tenantId: string;
    systemId: string;
    origin: string;
    refusals: number;
    firstAt: string;
    lastAt: string;
  },
) {
  return db
    .insertInto('cookie_refused_origins')
    .values({
      tenant_id: row.tenantId,
      system_id: row.systemId,
      origin: row.origin,
      refusals: row.refusals,
      first_seen_at: row.firstAt,
      last_seen_at: row.lastAt,
    })
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'system_id', 'origin']).doUpdateSet((eb) => ({
        refusals: eb('cookie_refused_origins.refusals', '+', eb.ref('excluded.refusals')),
        last_seen_at: eb
          .case()
          .when('excluded.last_seen_at', '>', eb.ref('cookie_refused_origins.last_seen_at'))
          .then(eb.ref('excluded.last_seen_at'))
          .else(eb.ref('cookie_refused_origins.last_seen_at'))
          .end(),
      })),
    )
    .execute();
}

/** A system's refused origins, the most recently seen first. */
export function listRefusedOriginRows(db: Executor, tenantId: string, systemId: string) {
  return db
    .selectFrom('cookie_refused_origins')
    .select(['origin', 'refusals', 'first_seen_at', 'last_seen_at'])
    .where('tenant_id', '=', tenantId)
    .where('system_id', '=', systemId)
    .orderBy('last_seen_at', 'desc')
    .orderBy('origin')
    .execute();
}
