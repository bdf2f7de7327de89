import type { NewEvent } from '../journal/index.js';
import { newId } from '../platform/ids.js';
import { sealPersonal } from '../subjects/index.js';
import type { RecordedDecision } from './schemas.js';

/**
 * A decision's webhook event: its record id finds its place in the decision log. The customer id
 * is kept sealed under the customer's own key (bound to the event), as the decision keeps it:
 * erasing the customer destroys that key, and with it every way from the event to the id.
 * A decision made through the preference centre says so (`via`); any other's data is as before.
 */
export function decisionEvent(
  tenantId: string,
  subject: { id: string; key: Buffer },
  data: RecordedDecision,
  via?: string,
): NewEvent {
  const id = newId();
  const { customer_id, ...rest } = data;
  const sealed = sealedCustomer(subject.key, id, customer_id);
  return {
    tenant_id: tenantId,
    id,
    type: `decision.${data.decision}`,
    record_id: data.decision_id,
    subject_id: subject.id,
    data: JSON.stringify({ ...rest, ...(via ? { via } : {}), customer_sealed: sealed }),
    occurred_at: data.decided_at,
  };
}

/**
 * A customer id as an event keeps it: sealed under the customer's own key and bound to the
 * event, so that erasing the customer takes the id out of the events not yet sent.
 */
export function sealedCustomer(key: Buffer, eventId: string, customerId: string): string {
  return sealPersonal(key, eventId, { customer_id: customerId, ip: '', user_agent: null });
}
