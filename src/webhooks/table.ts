import type { Selectable } from 'kysely';
import type { WebhookEventsTable } from '../journal/index.js';

/** The outbox's events and their types are the journal's (`src/journal/`): what features write. */
export type { EventType, WebhookEventsTable } from '../journal/index.js';

/** A tenant's receiver of signed events. */
export interface WebhookEndpointsTable {
  tenant_id: string;
  id: string;
  url: string;
  /** JSON array of the event types it receives. */
  events: string;
  description: string;
  /** The `whsec_…` signing secret, sealed under the data key, bound to the endpoint's id. */
  secret_sealed: string;
  /** The secret before the last rotation, sealed likewise: it signs too until the time below. */
  previous_secret_sealed: string | null;
  /** Until when deliveries are signed under the previous secret as well (the rotation's overlap). */
  previous_secret_signs_until: string | null;
  status: 'enabled' | 'disabled';
  /** Why it was disabled (delivery given up, or by hand), for the back-office's notice. */
  disabled_reason: string | null;
  disabled_at: string | null;
  /** The position of the last event delivered (or passed over): the next is the first after. */
  cursor: number;
  /** The first failure of the event at the head, while it keeps failing. */
  failing_since: string | null;
  /** Failed attempts of the event at the head, in a row. */
  failures: number;
  next_attempt_at: string | null;
  /** Which instance is sending to it, until when (a lease taken by compare-and-swap). */
  lease_owner: string | null;
  lease_until: string | null;
  created_at: string;
  updated_at: string;
}

/** The last position given per tenant, moved by compare-and-swap. */
export interface WebhookSequenceTable {
  tenant_id: string;
  position: number;
}

/** One attempt to deliver one event to one endpoint. */
export interface WebhookDeliveriesTable {
  tenant_id: string;
  id: string;
  endpoint_id: string;
  event_id: string;
  position: number;
  event_type: string;
  status: 'delivered' | 'failed';
  response_code: number | null;
  error: string | null;
  duration_ms: number;
  attempted_at: string;
  /** `scheduled` by the dispatcher, or `resend` by a person. */
  trigger: 'scheduled' | 'resend';
}

export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;
export type WebhookEventRow = Selectable<WebhookEventsTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;

declare module '../platform/database.js' {
  /** The tables this folder owns, in the store's one schema (src/platform/database.ts). */
  interface Database {
    webhook_endpoints: WebhookEndpointsTable;
    webhook_sequence: WebhookSequenceTable;
    webhook_deliveries: WebhookDeliveriesTable;
  }
}

/**
 * Other folders' tables this folder's queries read (joined where one statement answers better
 * than a call to their service); `npm run lint` checks that no query reaches another
 * (scripts/table-owners.mjs).
 */
export type Reads = 'tlog_entries' | 'webhook_events';

/** Other folders' tables this folder writes: events are given their positions (the sequencer) and an erasure's customer id is dropped once told. */
export type Writes = 'webhook_events';
