/** The public surface of `src/partners/`: what other folders may import (its README says what the folder is for). */
export { partnerCodePattern } from './schemas.js';
export {
  changePartner,
  createPartner,
  deletePartner,
  forgetReleasePartners,
  getPartner,
  getPartnerSummary,
  type ListedPartner,
  listPartners,
  type PartnerSummaryRow,
  partnersOfRelease,
  partnersOfReleases,
  setReleasePartners,
} from './service.js';
export type { PartnerRow } from './table.js';
