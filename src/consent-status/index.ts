/** The public surface of `src/consent-status/`: what other folders may import (its README says what each part is). */

export type { ConsentStatus, CustomerStatus, StatusRequest } from './schemas.js';
export { getConsentStatus, type StatusContext } from './service.js';
