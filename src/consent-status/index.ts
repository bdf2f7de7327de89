/** The public surface of `src/consent-status/`: what other folders may import (its README says what the folder is for). */

export type { ConsentStatus, CustomerStatus, StatusRequest } from './schemas.js';
export { getConsentStatus, type StatusContext } from './service.js';
