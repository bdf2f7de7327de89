/** A witness of other logs (C2SP tlog-witness), run by `consent-service witness serve`. */
export { type KnownLog, parseLogsFile } from './logs-file.js';
export { listConflicts } from './repository.js';
export { addCheckpoint, originHash, type WitnessAnswer } from './service.js';
export { openWitnessStore } from './store.js';
export type { WitnessDb } from './table.js';
