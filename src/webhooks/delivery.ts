/**
 * What delivering an event takes, apart from sending it (`send.ts`) and choosing when
 * (`dispatcher.ts`): the message it makes for a receiver, the record of each attempt, and the
 * erasure events' customer ids dropped once every subscribed endpoint has had them.
 */
import { erasedEventBinding } from '../erasure/index.js';
import type { Executor } from '../platform/db.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/time.js';
import type { SubjectVault } from '../subjects/index.js';
import { personalReader } from '../subjects/index.js';
import {
  anyBehind,
  insertDeliveries,
  insertDelivery,
  sealedErasures,
  updateEventData,
} from './repository.js';
import type { AttemptResult, Message } from './send.js';
import type { WebhookDeliveryRow, WebhookEndpointRow, WebhookEventRow } from './table.js';

/** A delivery attempt as the command line and the back-office show it: its row but the tenant. */
export type DeliveryView = Omit<WebhookDeliveryRow, 'tenant_id' | 'endpoint_id'>;

export function deliveryView(row: WebhookDeliveryRow): DeliveryView {
  const { tenant_id: _tenant, endpoint_id: _endpoint, ...shown } = row;
  return {
    ...shown,
    position: Number(row.position),
    response_code: row.response_code === null ? null : Number(row.response_code),
    duration_ms: Number(row.duration_ms),
  };
}

/** The message one event makes: what a receiver gets, signed. */
export async function messageOf(
  db: Executor,
  vault: SubjectVault,
  event: WebhookEventRow,
): Promise<Message> {
  const [message] = await messagesOf(db, vault, [event]);
  return message as Message;
}

/**
 * The messages of one tenant's events, in their order: each customer id opened under its
 * customer's own key (their keys read together), or null once they were erased.
 */
export async function messagesOf(
  db: Executor,
  vault: SubjectVault,
  events: readonly WebhookEventRow[],
): Promise<Message[]> {
  const parsed = events.map((event) => {
    const { customer_sealed, ...rest } = JSON.parse(event.data) as Record<string, unknown>;
    return { event, sealed: customer_sealed, rest };
  });
  const records = parsed.flatMap(({ event, sealed }) =>
    typeof sealed === 'string' && event.type !== 'customer.erased' && event.subject_id !== null
      ? [{ id: event.id, subject_id: event.subject_id, personal: sealed }]
      : [],
  );
  const customers = new Map<string, string | null>();
  const tenantId = events[0]?.tenant_id;
  if (records.length > 0 && tenantId !== undefined) {
    const opened = await personalReader(db, vault, tenantId)(records);
    records.forEach((record, i) => {
      customers.set(record.id, opened[i]?.personal?.customer_id ?? null);
    });
  }
  return parsed.map(({ event, sealed, rest }) => {
    const customerId =
      event.type === 'customer.erased'
        ? openErasedCustomer(vault, event, sealed)
        : (customers.get(event.id) ?? null);
    const index = event.log_index === null ? {} : { log_index: Number(event.log_index) };
    const data = event.type.startsWith('decision.')
      ? { decision_id: rest.decision_id, customer_id: customerId, ...rest, ...index }
      : event.type === 'cookie_decision.recorded'
        ? { decision_id: rest.decision_id, visitor_id: customerId, ...rest, ...index }
        : event.type === 'channel_change.recorded' || event.type === 'partner_block.recorded'
          ? { change_id: rest.change_id, customer_id: customerId, ...rest, ...index }
          : event.type === 'customer.erased'
            ? { customer_id: customerId, ...rest, ...index }
            : { ...rest, ...index };
    return {
      id: event.id,
      body: JSON.stringify({ type: event.type, timestamp: event.occurred_at, data }),
      position: Number(event.position),
    };
  });
}

function openErasedCustomer(
  vault: SubjectVault,
  event: WebhookEventRow,
  sealed: unknown,
): string | null {
  if (typeof sealed !== 'string') return null;
  try {
    return vault.accountSecrets.open(erasedEventBinding(event.id), sealed);
  } catch {
    return null;
  }
}

/**
 * Drops the customer id of erasure events every subscribed endpoint has been sent (or that no
 * enabled endpoint waits for any more): it is kept no longer than it takes to tell them.
 */
export async function scrubDeliveredErasures(db: Executor): Promise<void> {
  for (const event of await sealedErasures(db, 100)) {
    const position = Number(event.position);
    if (await anyBehind(db, event.tenant_id, 'customer.erased', position)) continue;
    const { customer_sealed: _dropped, ...rest } = JSON.parse(event.data) as Record<
      string,
      unknown
    >;
    await updateEventData(db, event.id, JSON.stringify(rest));
  }
}

export async function recordAttempt(
  db: Executor,
  endpoint: Pick<WebhookEndpointRow, 'tenant_id' | 'id'>,
  event: WebhookEventRow,
  result: AttemptResult,
  trigger: 'scheduled' | 'resend',
): Promise<DeliveryView> {
  const row = deliveryRow(endpoint, event, result, trigger);
  await insertDelivery(db, row);
  return deliveryView(row);
}

/** Several attempts of one endpoint's turn, in one statement. */
export async function recordAttempts(
  db: Executor,
  endpoint: Pick<WebhookEndpointRow, 'tenant_id' | 'id'>,
  attempts: readonly { event: WebhookEventRow; result: AttemptResult; at: string }[],
): Promise<void> {
  await insertDeliveries(
    db,
    attempts.map(({ event, result, at }) => deliveryRow(endpoint, event, result, 'scheduled', at)),
  );
}

function deliveryRow(
  endpoint: Pick<WebhookEndpointRow, 'tenant_id' | 'id'>,
  event: WebhookEventRow,
  result: AttemptResult,
  trigger: 'scheduled' | 'resend',
  at: string = nowIso(),
) {
  return {
    tenant_id: endpoint.tenant_id,
    id: newId(),
    endpoint_id: endpoint.id,
    event_id: event.id,
    position: Number(event.position ?? 0),
    event_type: event.type,
    status: result.ok ? ('delivered' as const) : ('failed' as const),
    response_code: result.responseCode,
    error: result.error === null ? null : result.error.slice(0, 500),
    duration_ms: result.durationMs,
    attempted_at: at,
    trigger,
  };
}
