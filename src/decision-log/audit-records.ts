/**
 * The records side of the log's audit beside their leaves (`leaves.ts`): the records the log is
 * missing, and those whose subject was erased.
 */
import type { Db } from '../platform/db.js';
import type { Registry } from '../record-kinds/index.js';
import { loggedKinds } from './leaves.js';
import { countErasedRows, findUnlogged } from './repository.js';

/** Records that are neither in the log nor queued for it (at most 1,000 of each kind). */
export async function unloggedRecords(db: Db, registry: Registry, logId: string) {
  const missing: string[] = [];
  for (const records of loggedKinds(registry)) {
    missing.push(...(await findUnlogged(db, records.table, logId)));
  }
  return missing;
}

/**
 * Records of the tenant whose customer or visitor was erased: their leaves were checked by the
 * subject and evidence commitments kept at the erasure, whose values went with the subject's key.
 */
export async function countErasedRecords(db: Db, registry: Registry, tenantId: string) {
  let total = 0;
  for (const records of loggedKinds(registry)) {
    if (records.sealed) total += await countErasedRows(db, records.table, tenantId);
  }
  return total;
}
