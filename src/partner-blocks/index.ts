/** The public surface of `src/partner-blocks/`: what other folders may import (its README says what each part is). */
export type { PartnerBlockContext, PartnerBlockState } from './blocks.js';
export { committedPartnerLeaf, type LoggedPartnerBlock, leafOfPartnerBlock } from './leaf.js';
export type {
  PartnerBlockJob,
  PartnerBlockOutcome,
  PartnerBlockWriter,
} from './record-changes.js';
export {
  blockedPartnersAsOf,
  type DecisionPartner,
  decisionListsPartners,
  findPartnerBlockChange,
  listDecisionPartners,
  listPartnerBlocks,
  partnerBlockChangesOf,
  setPartnerBlock,
  setPartnerBlockByUser,
  subjectPartnerBlockChanges,
} from './service.js';
export type { PartnerBlockChangeRow } from './table.js';
