import type { Selectable } from 'kysely';

/**
 * Append-only: one change of a partner block, on a customer's decision, for a partner the
 * decision's release lists (migration 0024).
 */
export interface PartnerBlockChangesTable {
  tenant_id: string;
  id: string;
  /** The customer's subject (src/subjects): their id, address and user agent are in `personal`. */
  subject_id: string;
  /** The decision the block is on: another decision of the customer is not affected. */
  decision_id: string;
  /** The partner's code, fixed once made: what the change's log leaf names. */
  partner_code: string;
  /** 1: blocked from then on; 0: allowed again. */
  blocked: number;
  /** The API key that made it; null for a back-office user's change (`user_id`). */
  api_key_id: string | null;
  /** The back-office user who made it; null for an API key's change. */
  user_id: string | null;
  /** The `Idempotency-Key` the request carried, if any. */
  idempotency_key: string | null;
  /** Customer id, address and user agent, sealed under the subject's key. */
  personal: string;
  /** base64 random bytes behind the evidence commitment of the change's log leaf. */
  evidence_salt: string;
  changed_at: string;
}

/** The latest change of each decision's partner; none: never blocked. */
export interface PartnerBlockStatesTable {
  tenant_id: string;
  decision_id: string;
  partner_code: string;
  subject_id: string;
  blocked: number;
  /** The change that set it. */
  change_id: string;
  since: string;
}

export type PartnerBlockChangeRow = Selectable<PartnerBlockChangesTable>;
export type PartnerBlockStateRow = Selectable<PartnerBlockStatesTable>;

declare module '../platform/database.js' {
  /** The tables this folder owns, in the store's one schema (src/platform/database.ts). */
  interface Database {
    partner_block_changes: PartnerBlockChangesTable;
    partner_block_states: PartnerBlockStatesTable;
  }
}
