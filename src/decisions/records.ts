import type { Trx } from '../platform/db.js';
import { findDecidedTemplates } from './record-repository.js';

/**
 * The templates a customer decided on, each with the version and text hash of their last
 * decision: what an erasure's tombstones name (one per template), read in its transaction.
 */
export function decidedTemplates(trx: Trx, tenantId: string, subjectId: string) {
  return findDecidedTemplates(trx, tenantId, subjectId);
}
