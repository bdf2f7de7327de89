import type { Executor } from '../platform/db.js';
import { personalReader, type SubjectVault } from '../subjects/index.js';
import type { ChoiceMethod } from './banner-config.js';
import { listCookieDecisionRows } from './decisions-repository.js';
import { getSystem } from './systems.js';

/** A visitor's choice as the command line, the back-office and exports show it. */
export interface CookieDecisionView {
  decision_id: string;
  system: string;
  configuration_id: string;
  configuration_version: number;
  method: ChoiceMethod;
  categories: Record<string, boolean>;
  locale: string;
  origin: string;
  /** Where the visitor was, when known. */
  region?: string;
  /** The A/B variant the visitor saw, when there were variants. */
  variant?: string;
  /** Null once the visitor was erased. */
  visitor_id: string | null;
  /** As the tenant keeps it (full, truncated or a keyed hash); null once erased. */
  ip: string | null;
  user_agent: string | null;
  decided_at: string;
}

const pageSize = 500;

/**
 * A tenant's cookie decisions (of one system when a scope is given), oldest first, a page at a
 * time: an export of any size holds one page in memory.
 */
export async function* cookieDecisions(
  db: Executor,
  vault: SubjectVault,
  tenantId: string,
  filter: { scope?: string } = {},
): AsyncGenerator<CookieDecisionView> {
  const systemId =
    filter.scope === undefined ? undefined : (await getSystem(db, tenantId, filter.scope)).id;
  const open = personalReader(db, vault, tenantId);
  let after: { decided_at: string; id: string } | undefined;
  for (;;) {
    const rows = await listCookieDecisionRows(
      db,
      tenantId,
      { ...(systemId ? { systemId } : {}), ...(after ? { after } : {}) },
      pageSize,
    );
    const opened = await open(rows);
    for (const [i, row] of rows.entries()) {
      const personal = opened[i]?.personal ?? null;
      yield {
        decision_id: row.id,
        system: row.scope,
        configuration_id: row.configuration_id,
        configuration_version: Number(row.configuration_version),
        method: row.method,
        categories: JSON.parse(row.categories) as Record<string, boolean>,
        locale: row.locale,
        origin: row.origin,
        ...(row.region ? { region: row.region } : {}),
        ...(row.variant ? { variant: row.variant } : {}),
        visitor_id: personal?.customer_id ?? null,
        ip: personal?.ip ?? null,
        user_agent: personal?.user_agent ?? null,
        decided_at: row.decided_at,
      };
    }
    const last = rows.at(-1);
    if (!last || rows.length < pageSize) return;
    after = { decided_at: last.decided_at, id: last.id };
  }
}
