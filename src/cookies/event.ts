import type { NewEvent } from '../journal/index.js';
import { newId } from '../platform/ids.js';
import { sealPersonal } from '../subjects/index.js';
import type { ChoiceMethod } from './banner-config.js';

/** What a `cookie_decision.recorded` event tells, but the visitor id (sealed) and its log index. */
export interface CookieDecisionEventData {
  decision_id: string;
  system: string;
  configuration_id: string;
  configuration_version: number;
  method: ChoiceMethod;
  categories: Record<string, boolean>;
  locale: string;
  origin: string;
  /** Where the visitor was, when known. */
  region?: string;
  /** The A/B variant the visitor saw, when there were variants. */
  variant?: string;
  decided_at: string;
}

/**
 * A cookie decision's webhook event. The visitor id is sealed under the visitor's own key (bound
 * to the event), as a decision's event keeps its customer id: erasing the visitor destroys the
 * way from the event to the id, and the event then says `visitor_id: null`.
 */
export function cookieDecisionEvent(
  tenantId: string,
  subject: { id: string; key: Buffer },
  visitorId: string,
  data: CookieDecisionEventData,
): NewEvent {
  const id = newId();
  const sealed = sealPersonal(subject.key, id, {
    customer_id: visitorId,
    ip: '',
    user_agent: null,
  });
  return {
    tenant_id: tenantId,
    id,
    type: 'cookie_decision.recorded',
    record_id: data.decision_id,
    subject_id: subject.id,
    data: JSON.stringify({ ...data, customer_sealed: sealed }),
    occurred_at: data.decided_at,
  };
}
