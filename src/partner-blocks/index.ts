/** The public surface of `src/partner-blocks/`: what other folders may import (its README says what the folder is for). */
export type {
  PartnerBlockContext,
  PartnerBlockOutcome,
  PartnerBlockState,
  PartnerBlockWriter,
} from './blocks.js';
export { partnerBlocks } from './kind.js';
export {
  blockedPartnersAsOf,
  type DecisionPartner,
  decisionListsPartners,
  listDecisionPartners,
  listPartnerBlocks,
  setPartnerBlock,
  setPartnerBlockByUser,
} from './service.js';
export type { PartnerBlockChangeRow } from './table.js';
