/** The public surface of `src/records/`: what other folders may import (its README says what the folder is for). */
export {
  browseDecisions,
  type DecisionEvidence,
  type DecisionsPage,
  decisionEvidence,
} from './browse.js';
export { type ControlRecord, exportControlRecords } from './controls.js';
export {
  type DecisionFilter,
  type DecisionRecord,
  dailyDecisionCounts,
  exportDecisionRecords,
  type LoggedDecisionRecord,
  standingsOnVersions,
  type VersionStanding,
} from './history.js';
export { customerStandings, lookUpCustomer, type TemplateStanding } from './look-up.js';
export { getCustomerConsents } from './service.js';
