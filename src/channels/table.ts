import type { Selectable } from 'kysely';
import type { ControlChangeColumns, ControlStateColumns } from '../record-kinds/index.js';

/** Append-only: one change of a customer's channel for a product (migration 0022). */
export interface ChannelChangesTable extends ControlChangeColumns {
  product_id: string;
  /** The product's code, fixed once made: what the change's log leaf names. */
  product_code: string;
  channel: string;
}

/** The latest change of each customer's channel for each product; none: never changed. */
export interface ChannelStatesTable extends ControlStateColumns {
  product_id: string;
  channel: string;
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
