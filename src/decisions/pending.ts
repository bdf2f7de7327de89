import type { Executor } from '../platform/db.js';
import type { Catalog } from '../templates/catalog.js';
import { findVersionState } from './repository.js';
import type { PendingResult } from './schemas.js';

/**
 * Whether the customer still has to decide on the latest version of a template. One key look-up
 * (the customer's state on the latest version, which is cached), whatever the history.
 */
export async function getPending(
  db: Executor,
  catalog: Catalog,
  tenantId: string,
  customerId: string,
  templateCode: string,
): Promise<PendingResult> {
  const latest = await catalog.latest(tenantId, templateCode);
  const state = await findVersionState(db, tenantId, customerId, latest.version.id);
  return {
    accepted: state !== undefined,
    consent_version: latest.presented,
    decision: state?.last_decision ?? null,
    decided_at: state?.last_decided_at ?? null,
  };
}
