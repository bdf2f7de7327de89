import type { NewEvent } from '../journal/index.js';
import { newId } from '../platform/ids.js';
import { sealPersonal } from '../subjects/index.js';

/** What a `partner_block.recorded` event tells, but the customer id (sealed) and its log index. */
export interface PartnerBlockEventData {
  change_id: string;
  decision_id: string;
  partner_code: string;
  blocked: boolean;
  changed_at: string;
  /** Who made it: the API key, or the back-office user (the other null). */
  actor: { api_key_id: string | null; user_id: string | null };
  /** Present only for a change made through the preference centre. */
  via?: 'preference-centre';
}

/**
 * A partner block's webhook event. The customer id is sealed under the customer's own key (bound
 * to the event), as a decision's event keeps it: erasing the customer destroys the way from the
 * event to the id, and the event then says `customer_id: null`.
 */
export function partnerBlockEvent(
  tenantId: string,
  subject: { id: string; key: Buffer },
  customerId: string,
  data: PartnerBlockEventData,
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
    type: 'partner_block.recorded',
    record_id: data.change_id,
    subject_id: subject.id,
    data: JSON.stringify({ ...data, customer_sealed: sealed }),
    occurred_at: data.changed_at,
  };
}
