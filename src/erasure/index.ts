/** The public surface of `src/erasure/`: what other folders may import (its README says what the folder is for). */
export { tombstones } from './kind.js';
export { leafOfErasure } from './leaf.js';
export {
  type ErasedSubject,
  type Eraser,
  type ErasureResult,
  eraseCustomer,
  eraseSubject,
  erasureSummary,
} from './service.js';
