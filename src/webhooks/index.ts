/** The public surface of `src/webhooks/`: what other folders may import (its README says what the folder is for). */

export type { EventKinds } from './delivery.js';
export { type Dispatcher, idleDispatcher, startDispatcher } from './dispatcher.js';
export { eventPayload, webhookPayloads } from './payloads.js';
export {
  createEndpoint,
  type DeliveryView,
  deleteEndpoint,
  disableEndpoint,
  type EndpointView,
  enableEndpoint,
  getEndpoint,
  listDeliveries,
  listEndpoints,
  replayFrom,
  resendDelivery,
  rotateSecret,
  type WebhookBacklog,
  webhookBacklog,
} from './service.js';
