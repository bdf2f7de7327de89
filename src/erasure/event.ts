import { type NewEvent, serviceSealBinding } from '../journal/index.js';
import { newId } from '../platform/ids.js';

/**
 * A customer's erasure event, ordered by its first tombstone in the decision log. Its customer
 * id is kept (sealed under the data key, bound to the event) only when an endpoint subscribes to
 * `customer.erased` (`told`), and only until every such endpoint has had it (the webhooks'
 * `scrubDelivered`): nothing else kept links an erasure to the id (docs/erasure.md).
 */
export function erasureEvent(
  seal: (binding: string, plain: string) => string,
  told: boolean,
  erasure: { tenantId: string; customerId: string; firstTombstoneId: string | null; at: string },
): NewEvent {
  const id = newId();
  const data = told
    ? { customer_sealed: seal(serviceSealBinding(id), erasure.customerId), erased_at: erasure.at }
    : { erased_at: erasure.at };
  return {
    tenant_id: erasure.tenantId,
    id,
    type: 'customer.erased',
    record_id: erasure.firstTombstoneId,
    subject_id: null,
    data: JSON.stringify(data),
    occurred_at: erasure.at,
  };
}
