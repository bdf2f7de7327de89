import type { NewEvent } from '../journal/index.js';
import { newId } from '../platform/ids.js';
import { sealPersonal } from '../subjects/index.js';

/** What a `channel_change.recorded` event tells, but the customer id (sealed) and its log index. */
export interface ChannelChangeEventData {
  change_id: string;
  product_code: string;
  channel: string;
  blocked: boolean;
  changed_at: string;
  /** Who made it: an API key, or a back-office user (the other null). */
  actor: { api_key_id: string | null; user_id: string | null };
  /** Present only for a change made through the preference centre. */
  via?: 'preference-centre';
}

/**
 * A channel change's webhook event. The customer id is sealed under the customer's own key (bound
 * to the event), as a decision's event keeps it: erasing the customer destroys the way from the
 * event to the id, and the event then says `customer_id: null`.
 */
export function channelChangeEvent(
  tenantId: string,
  subject: { id: string; key: Buffer },
  customerId: string,
  data: ChannelChangeEventData,
): NewEvent {
  const id = newId();
  const sealed = sealPersonal(subject.key, id, {
    customer_id: customerId,
    ip: '',
    user_agent: null,
  });
  return {
    tenant_id: tenantId,
    id,
    type: 'channel_change.recorded',
    record_id: data.change_id,
    subject_id: subject.id,
    data: JSON.stringify({ ...data, customer_sealed: sealed }),
    occurred_at: data.changed_at,
  };
}
