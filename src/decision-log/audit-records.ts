/**
 * The records side of the log's audit: the leaf each record of the store makes today, to compare
 * with the leaf the log holds for it, and the records the log is missing. Each kind of record
 * says how its leaf is rebuilt (its `records` part, src/record-kinds); this loops over them.
 */
import type { Db } from '../platform/db.js';
import { type KindRecords, leafEvidence, type Registry } from '../record-kinds/index.js';
import {
  erasedEvidence,
  type OpenedRecord,
  type personalReader,
  type SealedRecord,
} from '../subjects/index.js';
import { countErasedRows, findUnlogged } from './repository.js';

/** The kinds whose records the log holds. */
function loggedKinds(registry: Registry): KindRecords<{ id: string }>[] {
  return registry.kinds.flatMap((kind) => (kind.records ? [kind.records] : []));
}

/**
 * The leaf each record makes today, by record id. Null for a record whose sealed fields no longer
 * open (they, or its subject's key, were changed); no entry for a record that is not in the store.
 * A record whose subject was erased is rebuilt with the evidence commitment its erasure kept, or,
 * for an erasure made by a release that kept none (one still running during a rolling upgrade),
 * with the one its leaf carries.
 */
export async function expectedLeaves(
  db: Db,
  registry: Registry,
  open: ReturnType<typeof personalReader>,
  logId: string,
  entries: readonly { record_id: string; leaf: string }[],
): Promise<Map<string, string | null>> {
  const ids = entries.map((e) => e.record_id);
  const logged = new Map(entries.map((e) => [e.record_id, e.leaf]));
  const expected = new Map<string, string | null>();
  for (const records of loggedKinds(registry)) {
    const rows = ids.length === 0 ? [] : await records.byIds(db, logId, ids);
    const opened: (OpenedRecord | undefined)[] = records.sealed
      ? await open(rows as unknown as SealedRecord[])
      : [];
    const erased = rows.filter((_, i) => opened[i]?.state === 'erased').map((row) => row.id);
    const kept =
      erased.length === 0 ? new Map<string, string>() : await erasedEvidence(db, logId, erased);
    rows.forEach((row, i) => {
      const evidence = kept.get(row.id) ?? leafEvidence(records.format, logged.get(row.id));
      expected.set(row.id, records.expectedLeaf(row, opened[i], evidence));
    });
  }
  return expected;
}

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
