/** The public surface of `src/erasure/`: what other folders may import (its README says what each part is). */
export { erasedEventBinding } from './event.js';
export { leafOfErasure } from './leaf.js';
export { eraseCustomer, erasureSummary } from './service.js';
