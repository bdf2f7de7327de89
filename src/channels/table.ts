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
  api_key_id: string;
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

export type ChannelChangeRow = Selectable<ChannelChangesTable>;
export type ChannelStateRow = Selectable<ChannelStatesTable>;
