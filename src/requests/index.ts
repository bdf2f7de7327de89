/** The public surface of `src/requests/`: what other folders may import (its README says what the folder is for). */
export { clockOf, dueOn } from './clock.js';
export { deliveryPath, downloadDelivery } from './delivery.js';
export { requestStepsKind } from './kind.js';
export { type Reminder, remindDueRequests, reminderFor } from './reminders.js';
export {
  type LaterStep,
  laterSteps,
  openStatuses,
  type RefusalGround,
  type RequestKind,
  refusalGroundNames,
  refusalGrounds,
  requestKindNames,
  requestKinds,
  requestSteps,
} from './rules.js';
export {
  addRequestNote,
  assignRequest,
  type Fulfilment,
  openRequest,
  type RequestActor,
  takeStep,
} from './service.js';
export {
  customerRequests,
  getRequest,
  type Refusal,
  type RequestDetail,
  type RequestView,
  refusalsBy,
  requestQueue,
} from './views.js';
export type { DecisionPath } from './withdrawals.js';
