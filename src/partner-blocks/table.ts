import type { Selectable } from 'kysely';
import type { ControlChangeColumns, ControlStateColumns } from '../record-kinds/index.js';

/**
 * Append-only: one change of a partner block, on a customer's decision, for a partner the
 * decision's release lists (migration 0024).
 */
export interface PartnerBlockChangesTable extends ControlChangeColumns {
  /** The decision the block is on: another decision of the customer is not affected. */
  decision_id: string;
  /** The partner's code, fixed once made: what the change's log leaf names. */
  partner_code: string;
}

/** The latest change of each decision's partner; none: never blocked. */
export interface PartnerBlockStatesTable extends ControlStateColumns {
  decision_id: string;
  partner_code: string;
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

/**
 * Other folders' tables this folder's queries read (joined where one statement answers better
 * than a call to their service); `npm run lint` checks that no query reaches another
 * (scripts/table-owners.mjs).
 */
export type Reads = 'decisions' | 'customer_template_states' | 'templates' | 'template_versions';
