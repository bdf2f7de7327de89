import type {
  ControlContext,
  ControlJob,
  ControlOutcome,
  KindWriter,
} from '../record-kinds/index.js';

/** A partner's block on a decision as the API answers it. */
export interface PartnerBlockState {
  partner_code: string;
  blocked: boolean;
  /** When the latest change was made; null when the partner was never blocked. */
  since: string | null;
  /** The latest change's id (its receipt's); null when the partner was never blocked. */
  record_id: string | null;
}

/** Who made a partner block's change, as every control's change keeps it. */
export type PartnerBlockContext = ControlContext;

/** A change's outcome: recorded, unchanged (the partner had that state), or replayed by its key. */
export type PartnerBlockOutcome = ControlOutcome<PartnerBlockState>;

/** The answer a partner block gives, as its idempotency key keeps it. */
export type PartnerBlockBody = { data: PartnerBlockState };

/** How the service hands a change to the write path. */
export type PartnerBlockWriter = KindWriter<ControlJob, PartnerBlockOutcome>;
