import type { ControlJob, ControlOutcome, KindWriter } from '../record-kinds/index.js';

/** A partner's block on a decision as the API answers it. */
export interface PartnerBlockState {
  partner_code: string;
  blocked: boolean;
  /** When the latest change was made; null when the partner was never blocked. */
  since: string | null;
  /** The latest change's id (its receipt's); null when the partner was never blocked. */
  record_id: string | null;
}

/** Who made a change: an API key, or a back-office user; the request's address and agent. */
export interface PartnerBlockContext {
  tenantId: string;
  apiKeyId: string | null;
  userId: string | null;
  ip: string;
  userAgent: string | null;
  idempotencyKey: string | null;
  /** Set when the customer made the change on the preference centre: its evidence says so. */
  via?: 'preference-centre';
}

/** A change's outcome: recorded, unchanged (the partner had that state), or replayed by its key. */
export type PartnerBlockOutcome = ControlOutcome<PartnerBlockState>;

/** The answer a partner block gives, as its idempotency key keeps it. */
export type PartnerBlockBody = { data: PartnerBlockState };

/** How the service hands a change to the write path. */
export type PartnerBlockWriter = KindWriter<ControlJob, PartnerBlockOutcome>;
