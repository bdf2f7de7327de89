import type { Executor } from '../platform/db.js';
import type { SubjectVault } from '../subjects/index.js';
import { type Catalog, type LatestEntry, variantFor } from '../templates/index.js';
import { findCustomerVersionState } from './repository.js';
import type { DecisionValue } from './table.js';

/** Where a customer stands on the latest version of a template. */
export interface PendingState {
  /** The latest release's variant answered, with its parts serialized once (catalog.ts). */
  latest: LatestEntry;
  /** The customer's last decision on that release (on any locale's variant), if any. */
  decided: { last_decision: DecisionValue; last_decided_at: string } | undefined;
}

/**
 * Whether the customer still has to decide on the latest release of a template: a decision on
 * any locale's variant of it counts. One query by key per variant (the customer's keyed look-up
 * and the release, which is cached), whatever the history; an erased customer has no look-up,
 * so they start afresh.
 */
export async function getPendingState(
  db: Executor,
  catalog: Catalog,
  vault: SubjectVault,
  tenantId: string,
  customerId: string,
  templateCode: string,
  requested: readonly string[] = [],
): Promise<PendingState> {
  const release = await catalog.latest(tenantId, templateCode);
  const lookup = vault.lookup(tenantId, customerId);
  let decided: PendingState['decided'];
  for (const id of release.ids) {
    const state = await findCustomerVersionState(db, tenantId, lookup, id);
    if (state && (!decided || state.last_decided_at > decided.last_decided_at)) decided = state;
  }
  return { latest: variantFor(release, requested), decided };
}
