/**
 * A webhook event's type (`decision.given`, `channel_change.recorded`, …): each kind of record
 * declares the types it sends, and the registry of kinds lists them (src/record-kinds).
 */
export type EventType = string;

/** Leaves written with their record (a decision, a tombstone), waiting for the integrator. */
export interface TlogPendingTable {
  log_id: string;
  record_id: string;
  /**
   * The leaf's hash alone, 64 hex digits (`writeJournal`, migration 0053); the integrator takes
   * a leaf's text too, as releases up to 0.5.0 queue it (src/decision-log/logged-leaf.ts).
   */
  leaf: string;
  queued_at: string;
}

/**
 * The outbox: one row per event, written in the transaction of what it tells of. `position` is
 * given later by the sequencer, in commit order (the decision log's order for decisions and
 * erasures); deliveries go by it.
 */
export interface WebhookEventsTable {
  tenant_id: string;
  id: string;
  type: EventType;
  /** The decision's or the first tombstone's record id: its log entry gives the order. */
  record_id: string | null;
  /** The customer's subject, so that an erasure can take their id out of events not yet sent. */
  subject_id: string | null;
  /** JSON of the payload's `data`. */
  data: string;
  occurred_at: string;
  position: number | null;
  log_index: number | null;
}

declare module '../platform/database.js' {
  /** The tables this folder owns, in the store's one schema (src/platform/database.ts). */
  interface Database {
    tlog_pending: TlogPendingTable;
    webhook_events: WebhookEventsTable;
  }
}

/**
 * Other folders' tables this folder's queries read (joined where one statement answers better
 * than a call to their service); `npm run lint` checks that no query reaches another
 * (scripts/table-owners.mjs).
 */
export type Reads = 'webhook_endpoints';
