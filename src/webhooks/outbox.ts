/**
 * The outbox: what other features call, inside their own transaction, so that an event exists
 * exactly when what it tells of was committed (none lost, none invented).
 */
import type { Trx } from '../platform/db.js';
import { newId } from '../platform/ids.js';
import { sealPersonal } from '../subjects/personal.js';
import {
  anySubscriber,
  insertEvent,
  insertEvents,
  type NewEvent,
  subscribedSql,
} from './repository.js';
import type { EventType } from './table.js';

/**
 * A decision's event is written only when an endpoint of the tenant, enabled or disabled (it
 * resumes where it stopped), subscribes to its type: recording a decision is the service's hot
 * path, and an event costs a row and a seal. The writer asks in the decision's own transaction
 * (`anySubscriber`, or `subscribedSql` inside the PostgreSQL batch's read), so the answer is
 * exact, with no cache to go stale: a decision committed after an endpoint is made has its event.
 */
export { anySubscriber, subscribedSql };

/** A decision as the API answers it (contract section 4, D). */
export interface DecisionData {
  decision_id: string;
  customer_id: string;
  template_code: string;
  consent_version_id: string;
  version: number;
  decision: 'given' | 'reject' | 'withdraw';
  decided_at: string;
}

/**
 * A decision's event: its record id finds its place in the decision log. The customer id is kept
 * sealed under the customer's own key (bound to the event), as the decision keeps it: erasing
 * the customer destroys that key, and with it every way from the event to the id.
 */
export function decisionEvent(
  tenantId: string,
  subject: { id: string; key: Buffer },
  data: DecisionData,
): NewEvent {
  const id = newId();
  const { customer_id, ...rest } = data;
  const sealed = sealPersonal(subject.key, id, { customer_id, ip: '', user_agent: null });
  return {
    tenant_id: tenantId,
    id,
    type: `decision.${data.decision}`,
    record_id: data.decision_id,
    subject_id: subject.id,
    data: JSON.stringify({ ...rest, customer_sealed: sealed }),
    occurred_at: data.decided_at,
  };
}

/** Queues one event in the caller's transaction. */
export async function queueEvent(trx: Trx, event: NewEvent): Promise<void> {
  await insertEvent(trx, event);
}

/** A batch's events, in one statement (PostgreSQL group commit). */
export async function queueEvents(trx: Trx, events: readonly NewEvent[]): Promise<void> {
  await insertEvents(trx, events);
}

/** A version's public fields, as an event carries them. */
export interface VersionData {
  consent_version_id: string;
  template_code: string;
  version: number | null;
  tag: string;
  locale?: string | undefined;
  allow_reconsent: boolean;
  published_at: string | null;
}

/** Queues a version's event (approved, published, scheduled, archived). */
export async function queueVersionEvent(
  trx: Trx,
  tenantId: string,
  type: Extract<EventType, `version.${string}`>,
  data: VersionData,
  occurredAt: string,
): Promise<void> {
  await insertEvent(trx, {
    tenant_id: tenantId,
    id: newId(),
    type,
    record_id: null,
    subject_id: null,
    data: JSON.stringify(data),
    occurred_at: occurredAt,
  });
}

/**
 * Queues a customer's erasure, ordered by its first tombstone in the decision log. Its customer
 * id is kept (sealed under the data key, bound to the event) only when an endpoint subscribes to
 * `customer.erased`, and only until every such endpoint has had it (`scrubDelivered`): nothing
 * else kept links an erasure to the id (docs/erasure.md).
 */
export async function queueErasureEvent(
  trx: Trx,
  seal: (binding: string, plain: string) => string,
  tenantId: string,
  customerId: string,
  firstTombstoneId: string | null,
  erasedAt: string,
): Promise<void> {
  const id = newId();
  const told = await anySubscriber(trx, tenantId, 'customer.erased', 'enabled');
  const data = told
    ? { customer_sealed: seal(erasedEventBinding(id), customerId), erased_at: erasedAt }
    : { erased_at: erasedAt };
  await insertEvent(trx, {
    tenant_id: tenantId,
    id,
    type: 'customer.erased',
    record_id: firstTombstoneId,
    subject_id: null,
    data: JSON.stringify(data),
    occurred_at: erasedAt,
  });
}

/** What an erasure event's sealed customer id is bound to. */
export const erasedEventBinding = (eventId: string) => `webhook-event:${eventId}`;
