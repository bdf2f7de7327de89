import type { Executor } from '../platform/db.js';
import type { SubjectVault } from '../subjects/vault.js';
import type { Catalog } from '../templates/catalog.js';
import { findCustomerVersionState } from './repository.js';
import type { PendingResult } from './schemas.js';

/**
 * Whether the customer still has to decide on the latest version of a template. One query by
 * key (the customer's keyed look-up and the latest version, which is cached), whatever the
 * history; an erased customer has no look-up, so they start afresh.
 */
export async function getPending(
  db: Executor,
  catalog: Catalog,
  vault: SubjectVault,
  tenantId: string,
  customerId: string,
  templateCode: string,
): Promise<PendingResult> {
  const latest = await catalog.latest(tenantId, templateCode);
  const lookup = vault.lookup(tenantId, customerId);
  const state = await findCustomerVersionState(db, tenantId, lookup, latest.version.id);
  return {
    accepted: state !== undefined,
    consent_version: latest.presented,
    decision: state?.last_decision ?? null,
    decided_at: state?.last_decided_at ?? null,
  };
}
