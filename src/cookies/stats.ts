import type { Executor } from '../platform/db.js';
import type { ChoiceMethod } from './banner-config.js';
import { listSystemRows } from './repository.js';
import { countChoicesPerMethod } from './stats-repository.js';

/** A system's visitors' choices over a period, by how they were made. */
export interface ChoiceRates {
  scope: string;
  name: string;
  total: number;
  byMethod: Record<ChoiceMethod, number>;
}

/**
 * Per system of the tenant (by name), how many choices were made from `since` on, and how many
 * of them accepted all, rejected all, chose category by category, or came from Global Privacy
 * Control. A system with no choice is listed with zeros.
 */
export async function cookieChoiceRates(
  db: Executor,
  tenantId: string,
  since: string,
): Promise<ChoiceRates[]> {
  const [systems, counts] = await Promise.all([
    listSystemRows(db, tenantId),
    countChoicesPerMethod(db, tenantId, since),
  ]);
  return systems.map((system) => {
    const byMethod: Record<ChoiceMethod, number> = {
      'accept-all': 0,
      'reject-all': 0,
      custom: 0,
      gpc: 0,
    };
    for (const row of counts) {
      if (row.system_id === system.id) byMethod[row.method] += Number(row.count);
    }
    const total = Object.values(byMethod).reduce((sum, n) => sum + n, 0);
    return { scope: system.scope, name: system.name, total, byMethod };
  });
}
