/**
 * A logged record's leaf, rebuilt from the record the store holds: what receipts, proofs and the
 * audit show and check. Each kind of record says how its leaf is rebuilt (its `records` part,
 * src/record-kinds); this loops over them and names none. A record whose subject was erased is
 * rebuilt from its subject commitment and the evidence commitment its erasure kept.
 */
import type { Executor } from '../platform/db.js';
import type { KindRecords, Registry } from '../record-kinds/index.js';
import {
  erasedEvidence,
  type OpenedRecord,
  personalReader,
  type SealedRecord,
  type SubjectVault,
} from '../subjects/index.js';
import { loggedLeafText } from './logged-leaf.js';

/** A log entry as its readers take it: its record, its index, and the leaf the log holds. */
export type Entry = { record_id: string; idx: number | string; leaf: string };

/**
 * The leaf a record makes today, and the kind that found it. `leaf` is null for a record whose
 * sealed fields no longer open (they, or its subject's key, were changed) and '' for one that
 * cannot make a leaf at all (a changed field).
 */
export interface RebuiltLeaf {
  leaf: string | null;
  records: KindRecords<{ id: string }>;
}

/** The kinds whose records the log holds. */
export function loggedKinds(registry: Registry): KindRecords<{ id: string }>[] {
  return registry.kinds.flatMap((kind) => (kind.records ? [kind.records] : []));
}

/** Records asked of a kind in one statement (`byIds` takes at most 500). */
const idsPerRead = 500;

/**
 * Rebuilds the leaves of a tenant's log entries, keeping the subjects' keys it opened from one
 * call to the next (an audit's pages, a pack's records). Each kind is asked for the ids no kind
 * before it found, `first` (the kind the caller expects) before the others.
 */
export function leafRebuilder(
  db: Executor,
  vault: SubjectVault,
  registry: Registry,
  tenantId: string,
) {
  const open = personalReader(db, vault, tenantId);
  const kinds = loggedKinds(registry);
  return async (
    entries: readonly Entry[],
    first?: KindRecords<{ id: string }>,
  ): Promise<Map<string, RebuiltLeaf>> => {
    const logged = new Set(entries.map((e) => e.record_id));
    const rebuilt = new Map<string, RebuiltLeaf>();
    const order = first ? [first, ...kinds.filter((kind) => kind !== first)] : kinds;
    for (const records of order) {
      const ids = [...logged].filter((id) => !rebuilt.has(id));
      for (let start = 0; start < ids.length; start += idsPerRead) {
        const rows = await records.byIds(db, tenantId, ids.slice(start, start + idsPerRead));
        const opened: (OpenedRecord | undefined)[] = records.sealed
          ? await open(rows as unknown as SealedRecord[])
          : [];
        const erased = rows.filter((_, i) => opened[i]?.state === 'erased').map((row) => row.id);
        const kept = erased.length === 0 ? new Map() : await erasedEvidence(db, tenantId, erased);
        rows.forEach((row, i) => {
          const leaf = records.expectedLeaf(row, opened[i], kept.get(row.id));
          rebuilt.set(row.id, { leaf, records });
        });
      }
    }
    return rebuilt;
  };
}

/** How receipts and proofs read entries' leaves: rebuilt from their records. */
export type LeafReader = (
  entries: readonly Entry[],
  first?: KindRecords<{ id: string }>,
) => Promise<Entry[]>;

/**
 * Entries with the leaf each record makes today. A record that makes none (its sealed fields no
 * longer open, or it is gone) keeps the leaf the log holds, or '' where the log holds its hash
 * alone (its proof then fails); the audit names it.
 */
export function leafReader(
  db: Executor,
  vault: SubjectVault,
  registry: Registry,
  tenantId: string,
): LeafReader {
  const rebuild = leafRebuilder(db, vault, registry, tenantId);
  return async (entries, first) => {
    const rebuilt = await rebuild(entries, first);
    return entries.map((entry) => {
      const leaf = rebuilt.get(entry.record_id)?.leaf;
      return { ...entry, leaf: leaf || (loggedLeafText(entry.leaf) ?? '') };
    });
  };
}
