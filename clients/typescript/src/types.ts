import type { paths } from './schema.js';

type Latest = paths['/api/v1/consent-templates/{template_code}/latest']['get'];
type Pending =
  paths['/api/v1/customers/{customer_id}/consents/templates/{template_code}/pending']['get'];
type Decisions = paths['/api/v1/customers/{customer_id}/consents/decisions']['post'];
type Receipts = paths['/api/v1/decisions/{decision_id}/receipt']['get'];
type CookieReceipts = paths['/api/v1/cookie-decisions/{decision_id}/receipt']['get'];
type Consents = paths['/api/v1/customers/{customer_id}/consents']['get'];
type AsOf =
  paths['/api/v1/customers/{customer_id}/consents/templates/{template_code}/as-of']['get'];
type Status = paths['/api/v1/consents/status']['post'];
type ChannelPut = paths['/api/v1/customers/{customer_id}/channels/{product_code}/{channel}']['put'];
type PartnerPut =
  paths['/api/v1/customers/{customer_id}/consents/decisions/{decision_id}/partners/{partner_code}']['put'];
type PartnerList =
  paths['/api/v1/customers/{customer_id}/consents/decisions/{decision_id}/partners']['get'];
type PreferenceLinks = paths['/api/v1/customers/{customer_id}/preference-links']['post'];
type AllowedOriginsPut = paths['/api/v1/preference-centre/allowed-origins']['put'];
type Json<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type Data<R> = Json<R> extends { data: infer D } ? D : never;

/** V: a published version of a template, as `latest` answers it. */
export type ConsentVersion = Data<Latest['responses'][200]>;
/** What `pending` answers: whether the customer decided on the latest version, and how. */
export type PendingConsent = Data<Pending['responses'][200]>;
/** The body of a decision: the version the customer was shown, and what they decided. */
export type DecisionRequest = Json<Decisions['requestBody']>;
/** D: a recorded decision. */
export type Decision = Data<Decisions['responses'][201]>;
/** `given`, `reject` or `withdraw`. */
export type DecisionValue = DecisionRequest['decision'];
/** The health check's own body (it has no `data` envelope), on `200` and on `503`. */
export type Health = Json<paths['/api/health']['get']['responses'][200]>;
/** A decision's receipt: its leaf in the decision log, the inclusion proof and the checkpoint. */
export type Receipt = Data<Receipts['responses'][200]>;
/** A receipt not made yet: the decision's leaf waits to be appended to the log. */
export type QueuedReceipt = Data<Receipts['responses'][202]>;
/**
 * A website visitor's cookie decision's receipt: the choice, its leaf in the decision log, the
 * inclusion proof and the checkpoint.
 */
export type CookieReceipt = Data<CookieReceipts['responses'][200]>;
/** The log's verifier key and origin. */
export type LogKey = Data<paths['/api/v1/log/key']['get']['responses'][200]>;
/** The log's latest signed checkpoint. */
export type Checkpoint = Data<paths['/api/v1/log/checkpoint']['get']['responses'][200]>;
/** A consistency proof between two sizes of the log. */
export type ConsistencyProof = Data<paths['/api/v1/log/consistency']['get']['responses'][200]>;
/** One page of a customer's record: standings per template, decisions, the next page's cursor. */
export type CustomerConsents = Data<Consents['responses'][200]>;
/** One decision in a customer's history. */
export type HistoryEntry = CustomerConsents['history'][number];
/** What was in force for a customer and template at a moment. */
export type ConsentAsOf = Data<AsOf['responses'][200]>;
/** The body of a status request: a template, 1 to 1,000 customer ids, a channel, a moment. */
export type ConsentStatusRequest = Json<Status['requestBody']>;
/** Where each customer asked about stands on the template, with the log's checkpoint. */
export type ConsentStatus = Data<Status['responses'][200]>;
/** One customer's standing in a status answer. */
export type CustomerStatus = ConsentStatus['customers'][number];

/** A customer's channel for a product: blocked or not, since when, and the change behind it. */
export type ChannelState = Data<ChannelPut['responses'][201]>;
/** A partner on one of a customer's decisions: blocked or not, since when. */
export type PartnerBlock = Data<PartnerPut['responses'][201]>;
/** Every partner a decision's version lists, with its block. */
export type DecisionPartner = Data<PartnerList['responses'][200]>[number];
/** A channel change's receipt. */
export type ChannelReceipt = Data<
  paths['/api/v1/channel-changes/{change_id}/receipt']['get']['responses'][200]
>;
/** A partner block's change's receipt. */
export type PartnerBlockReceipt = Data<
  paths['/api/v1/partner-block-changes/{change_id}/receipt']['get']['responses'][200]
>;
/** What a backend may ask of a preference link: where "Back" leads, the language, the lifetime. */
export type PreferenceLinkRequest = Json<PreferenceLinks['requestBody']>;
/** A link to the customer's own page, and when it stops opening. */
export type PreferenceLink = Data<PreferenceLinks['responses'][201]>;
/** The origins a preference link may return to, and that may frame the customer's page. */
export type AllowedOrigins = Data<AllowedOriginsPut['responses'][200]>;
/** A control's receipt while its change waits to be appended to the log. */
export interface QueuedChange {
  change_id: string;
  status: 'queued';
}
