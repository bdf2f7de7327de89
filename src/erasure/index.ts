/** The public surface of `src/erasure/`: what other folders may import (its README says what each part is). */
export { erasedEventBinding } from './event.js';
export { leafOfErasure } from './leaf.js';
export {
  type Eraser,
  erasableVisitorChoices,
  eraseCustomer,
  eraseVisitor,
  erasureSummary,
  type VisitorErasureResult,
} from './service.js';
