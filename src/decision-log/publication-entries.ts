import type { Executor } from '../platform/db.js';
import type { PublishedOn } from '../proof/index.js';
import { publications, publicationsOf } from '../publications/index.js';
import type { Entry, LeafReader } from './leaves.js';
import { findEntriesByRecords } from './repository.js';

/**
 * For each record made on a published text, the entry of that text's newest publication before
 * it, with its leaf as `leaves` rebuilds it: the publications of each text (template or
 * configuration, and version) read once.
 */
export async function publicationsBefore(
  db: Executor,
  tenantId: string,
  entries: readonly Entry[],
  publishedOn: (leaf: string) => PublishedOn | undefined,
  leaves: LeafReader,
): Promise<Map<string, Entry>> {
  const onOf = new Map(entries.map((entry) => [entry.record_id, publishedOn(entry.leaf)]));
  const texts = new Map<string, PublishedOn>();
  for (const on of onOf.values()) if (on) texts.set(`${on.of} ${on.version}`, on);
  const byText = new Map<string, Entry[]>();
  for (const [key, on] of texts) {
    const ids = await publicationsOf(db, tenantId, on);
    byText.set(key, ids.length === 0 ? [] : await findEntriesByRecords(db, tenantId, ids));
  }
  const before = new Map<string, Entry>();
  for (const entry of entries) {
    const on = onOf.get(entry.record_id);
    const newest = (on ? (byText.get(`${on.of} ${on.version}`) ?? []) : [])
      .filter((p) => Number(p.idx) < Number(entry.idx))
      .sort((a, b) => Number(b.idx) - Number(a.idx))[0];
    if (newest) before.set(entry.record_id, newest);
  }
  const chosen = await leaves([...new Set(before.values())], publications.records);
  const shown = new Map(chosen.map((entry) => [entry.record_id, entry]));
  return new Map([...before].map(([id, entry]) => [id, shown.get(entry.record_id) ?? entry]));
}
