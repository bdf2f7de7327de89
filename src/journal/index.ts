/**
 * The journal: the one place where a write's consequences are recorded, inside the writer's own
 * transaction, so that they exist exactly when what they tell of was committed (none lost, none
 * invented). A record that the decision log must prove (a decision, an erasure's tombstone)
 * leaves a leaf for the integrator (`src/decision-log/`); a change a tenant may be told of leaves an event
 * in the outbox for the webhooks' dispatcher (`src/webhooks/`). Features write here through
 * `writeJournal`; the log and the webhooks only read what was written.
 */
import type { Trx } from '../platform/db.js';
import { leafHash } from '../proof/index.js';
import { insertEvents, insertLeaves, type NewEvent, type NewLeaf } from './repository.js';

/**
 * Whether an event of a type is wanted (`anySubscriber`, or `subscribedSql` inside a statement):
 * a decision's event is written only when an endpoint of the tenant, enabled or disabled (it
 * resumes where it stopped), subscribes to its type. Recording a decision is the service's hot
 * path, and an event costs a row and a seal; the question is asked in the writer's own
 * transaction, so the answer is exact, with no cache to go stale.
 */
export { anySubscriber, type NewEvent, type NewLeaf, subscribedSql } from './repository.js';
export type { EventType, TlogPendingTable, WebhookEventsTable } from './table.js';

/**
 * What an event's id sealed under the service's own secrets (not a subject's key) is bound to:
 * an erasure's event keeps the erased customer id so, until every endpoint was told.
 */
export const serviceSealBinding = (eventId: string) => `webhook-event:${eventId}`;

/** What one write (or a batch of them) leaves behind. */
export interface JournalEntries {
  /** A leaf per record the tenant's decision log must prove; the log's id is the tenant's. */
  leaves?: readonly NewLeaf[];
  /** Events for the tenant's webhook endpoints. */
  events?: readonly NewEvent[];
}

/**
 * Records a write's consequences in the caller's transaction. A leaf waits for the log as its
 * hash alone (RFC 6962: SHA-256 of 0x00 and the text, 64 hex digits), which is all the log keeps
 * of it (migration 0053): receipts and evidence packs rebuild the text from the record.
 */
export async function writeJournal(trx: Trx, entries: JournalEntries): Promise<void> {
  await insertLeaves(trx, (entries.leaves ?? []).map(queuedAsHash));
  await insertEvents(trx, entries.events ?? []);
}

function queuedAsHash(leaf: NewLeaf): NewLeaf {
  const hash = Buffer.from(leafHash(Buffer.from(leaf.leaf, 'utf8'))).toString('hex');
  return { ...leaf, leaf: hash };
}
