import type { Executor } from '../platform/db.js';
import { getLatestVersion, presentVersion } from '../templates/service.js';
import { findVersionState } from './repository.js';
import type { PendingResult } from './schemas.js';

/**
 * Whether the customer still has to decide on the latest version of a template. Two key
 * look-ups (the latest version, the customer's state on it), whatever the customer's history.
 */
export async function getPending(
  db: Executor,
  tenantId: string,
  customerId: string,
  templateCode: string,
  publicBaseUrl: string,
): Promise<PendingResult> {
  const latest = await getLatestVersion(db, tenantId, templateCode);
  const state = await findVersionState(db, tenantId, customerId, latest.id);
  return {
    accepted: state !== undefined,
    consent_version: presentVersion(latest, publicBaseUrl),
    decision: state?.last_decision ?? null,
    decided_at: state?.last_decided_at ?? null,
  };
}
