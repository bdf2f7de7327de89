/** The public surface of `src/decisions/`: what other folders may import (its README says what the folder is for). */
export { type DecisionContext, presentDecision } from './decision.js';
export { type HeldActs, heldActs } from './held-acts.js';
export { deleteExpiredHeldActs, deleteHeldActs } from './held-acts-repository.js';
export { decisions } from './kind.js';
export { type Lapse, lapseOf } from './lapse.js';
export { lapsedEventType, tellLapses } from './lapse-events.js';
export { committedLeaf, leafOfDecision } from './leaf.js';
export { getPendingState, type PendingReads, pendingAnswer } from './pending.js';
export { pendingReads } from './pending-repository.js';
export { type DecisionWithTemplate, decisionReceipt, Receipt } from './receipt.js';
export { decidedTemplates } from './records.js';
export {
  ActedBy,
  CustomerIdParam,
  customerIdPattern,
  DecisionValue,
  ExplicitAct,
  lapseFields,
  RecordedDecision,
} from './schemas.js';
export { type DecisionWriter, decide } from './service.js';
export type { DecisionRow } from './table.js';
export type { DecisionWriterHandle } from './writer.js';
export type { DecisionJob, DecisionOutcome } from './writes.js';
