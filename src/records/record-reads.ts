/**
 * How a customer's record (their subject, standings and a page of history) is read, by store:
 * - PostgreSQL: the records asked in the same turn of the event loop as one statement
 *   (`findCustomerRecords`), batched as `pending`'s look-ups are (platform/read-batches.ts), one
 *   batcher for each executor a read is routed to (the primary, each replica, a transaction),
 *   so that every read still goes where its caller sent it.
 * - SQLite: the subject, then the standings and the page side by side. On a file these run on
 *   the reader threads, where three small statements cost less than one that builds JSON
 *   (bench/notebook.md, "2026-12-01, 07:14 to 07:26", tried and dropped).
 */
import { type Executor, isPostgres } from '../platform/db.js';
import { batchedReads } from '../platform/read-batches.js';
import type { SubjectVault } from '../subjects/index.js';
import { findLiveSubjectRow } from '../subjects/index.js';
import {
  type CustomerRecord,
  findCustomerRecords,
  findHistoryPage,
  findTemplateStandings,
  type RecordAsked,
} from './repository.js';

/** Batch statements running at once on one executor, as `pending`'s on the default pool. */
const inFlight = 4;

const batchers = new WeakMap<Executor, (asked: RecordAsked) => Promise<CustomerRecord>>();

function batcherFor(db: Executor) {
  let read = batchers.get(db);
  if (!read) {
    read = batchedReads(
      (batch: readonly RecordAsked[]) => findCustomerRecords(db, batch),
      inFlight,
    );
    batchers.set(db, read);
  }
  return read;
}

/** The customer's record, with up to `asked.limit` decisions; undefined: no live customer. */
export async function readCustomerRecord(
  db: Executor,
  vault: SubjectVault,
  tenantId: string,
  customerId: string,
  page: Pick<RecordAsked, 'limit' | 'after'>,
): Promise<CustomerRecord> {
  const asked = { tenantId, lookup: vault.lookup(tenantId, customerId), ...page };
  if (isPostgres(db)) return batcherFor(db)(asked);
  const subject = await findLiveSubjectRow(db, tenantId, asked.lookup);
  if (!subject) return undefined;
  const [standings, rows] = await Promise.all([
    findTemplateStandings(db, tenantId, subject.id),
    findHistoryPage(db, tenantId, subject.id, page.limit, page.after),
  ]);
  return { ...subject, standings, page: rows };
}
