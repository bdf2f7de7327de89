import type { Selectable } from 'kysely';

/** Append-only: one change of a customer's channel for a product (migration 0022). */
export interface ChannelChangesTable {
  tenant_id: string;
  id: string;
  /** The customer's subject (src/subjects): their id, address and user agent are in `personal`. */
  subject_id: string;
  product_id: string;
  /** The product's code, fixed once made: what the change's log leaf names. */
  product_code: string;
  channel: string;
  /** 1: blocked from then on; 0: allowed again. */
  blocked: number;
  /** The API key that made it; null for a back-office user's change (`user_id`). */
  api_key_id: string | null;
  /** The back-office user who made it; null for an API key's change (migration 0024). */
  user_id: string | null;
  /** The `Idempotency-Key` the request carried, if any. */
  idempotency_key: string | null;
  /** Customer id, address and user agent, sealed under the subject's key. */
  personal: string;
  /** base64 random bytes behind the evidence commitment of the change's log leaf. */
  evidence_salt: string;
  changed_at: string;
}

/** The latest change of each customer's channel for each product; none: never changed. */
export interface ChannelStatesTable {
  tenant_id: string;
  subject_id: string;
  product_id: string;
  channel: string;
  blocked: number;
  /** The change that set it. */
  change_id: string;
  since: string;
}

/** A channel of the tenant's own, beside the five every tenant has (migration 0024). */
export interface TenantChannelsTable {
  tenant_id: string;
  /** A lowercase slug, unique in the tenant, never one of the five; fixed once made. */
  code: string;
  name: string;
  created_at: string;
}

export type ChannelChangeRow = Selectable<ChannelChangesTable>;
export type ChannelStateRow = Selectable<ChannelStatesTable>;

declare module '../platform/database.js' {
  /** The tables this folder owns, in the store's one schema (src/platform/database.ts). */
  interface Database {
    channel_changes: ChannelChangesTable;
    channel_states: ChannelStatesTable;
    tenant_channels: TenantChannelsTable;
  }
}
