/** The public surface of `src/decision-log/`: what other folders may import (its README says what the folder is for). */

export { type AuditReport, auditLog } from './audit.js';
export { type AuditRun, lastAuditRun, recordLogAudit, saveAuditRun } from './audit-runs.js';
export { type Coverage, checkpointCovering } from './coverage.js';
export {
  LogBehindError,
  logsBehindSigned,
  refuseLogsBehind,
  startEpoch,
  verifyEpochStatement,
} from './epochs.js';
export { type Integrator, idleIntegrator, leavesWaiting, startIntegrator } from './integrator.js';
export { type LeafReader, leafReader } from './leaves.js';
export { logProofsAtLatest, type ProofsAtCheckpoint } from './proofs-at.js';
export {
  awaitReady,
  awaitReceipt,
  noOutsideProofs,
  type OutsideProofs,
  openedOnly,
  type ReceiptResult,
  receiptOf,
} from './receipts.js';
export { LogCheckpoint, type LogKey } from './schemas.js';
export { integratorBacklog, logOverview, queuedLeaves } from './service.js';
export { checkSigningKey, loadSigningKey, type SigningKeyLog } from './signing-key.js';
export { logLeavesByTime } from './table.js';
export {
  idleTimestamping,
  startTimestamping,
  type TimestampFailure,
  type Timestamping,
} from './timestamping.js';
export { loadTsaPolicy, TsaSettingsError } from './tsa-list.js';
export {
  type LogWitness,
  loadWitnessPolicy,
  noWitnesses,
  parseWitnessList,
  WitnessListError,
  type WitnessPolicy,
} from './witness-list.js';
export {
  idleWitnessing,
  startWitnessing,
  type WitnessFailure,
  type Witnessing,
  type WitnessStatus,
} from './witnessing.js';
