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
  const sealed = sealPersonal(subject.key, id, { customer_id, ip: '', user_agent: null });
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
