import type { Executor } from '../platform/db.js';
import type { SubjectVault } from '../subjects/vault.js';
import type { Catalog, LatestEntry } from '../templates/catalog.js';
import { findCustomerVersionState } from './repository.js';
import type { DecisionValue } from './table.js';

/** Where a customer stands on the latest version of a template. */
export interface PendingState {
  /** The latest published version, with its part of the answer serialized once (catalog.ts). */
  latest: LatestEntry;
  /** The customer's last decision on that version, if any. */
  decided: { last_decision: DecisionValue; last_decided_at: string } | undefined;
}

/**
 * Whether the customer still has to decide on the latest version of a template. One query by key
 * (the customer's keyed look-up and the latest version, which is cached), whatever the history;
 * an erased customer has no look-up, so they start afresh.
 */
export async function getPendingState(
  db: Executor,
  catalog: Catalog,
  vault: SubjectVault,
  tenantId: string,
  customerId: string,
  templateCode: string,
): Promise<PendingState> {
  const latest = await catalog.latest(tenantId, templateCode);
  const lookup = vault.lookup(tenantId, customerId);
  const decided = await findCustomerVersionState(db, tenantId, lookup, latest.version.id);
  return { latest, decided };
}
