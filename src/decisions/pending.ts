import type { Executor } from '../platform/db.js';
import type { SubjectVault } from '../subjects/vault.js';
import type { Catalog } from '../templates/catalog.js';
import { findCustomerVersionState } from './repository.js';
import type { PendingResult } from './schemas.js';

/**
 * Whether the customer still has to decide on the latest version of a template, as the answer's
 * JSON (`{"data": PendingResult}`). One query by key (the customer's keyed look-up and the latest
 * version, which is cached), whatever the history; an erased customer has no look-up, so they
 * start afresh. The version's part of the answer is serialized once per version (catalog.ts),
 * so each answer only adds the customer's few fields to it.
 */
export async function getPending(
  db: Executor,
  catalog: Catalog,
  vault: SubjectVault,
  tenantId: string,
  customerId: string,
  templateCode: string,
): Promise<string> {
  const latest = await catalog.latest(tenantId, templateCode);
  const lookup = vault.lookup(tenantId, customerId);
  const state = await findCustomerVersionState(db, tenantId, lookup, latest.version.id);
  // The keys in PendingResult's order, as the schema's serializer would write them.
  const result: Record<keyof PendingResult, string> = {
    accepted: String(state !== undefined),
    consent_version: latest.presentedJson,
    decision: JSON.stringify(state?.last_decision ?? null),
    decided_at: JSON.stringify(state?.last_decided_at ?? null),
  };
  return `{"data":{"accepted":${result.accepted},"consent_version":${result.consent_version},"decision":${result.decision},"decided_at":${result.decided_at}}}`;
}
