/**
 * What delivering an event takes, apart from sending it (`send.ts`) and choosing when
 * (`dispatcher.ts`): the message it makes for a receiver, the record of each attempt, and the
 * erasure events' customer ids dropped once every subscribed endpoint has had them.
 */
import { serviceSealBinding } from '../journal/index.js';
import type { Executor } from '../platform/db.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/time.js';
import type { Registry } from '../record-kinds/index.js';
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

/** What the webhooks know of the kinds of record: their event types, and who sends each. */
export type EventKinds = Pick<Registry, 'eventTypes' | 'byEventType' | 'kinds'>;

/** The message one event makes: what a receiver gets, signed. */
export async function messageOf(
  db: Executor,
  vault: SubjectVault,
  kinds: EventKinds,
  event: WebhookEventRow,
): Promise<Message> {
  const [message] = await messagesOf(db, vault, kinds, [event]);
  return message as Message;
}

/**
 * The messages of one tenant's events, in their order: each customer id opened under its
 * customer's own key (their keys read together), or null once they were erased.
 */
export async function messagesOf(
  db: Executor,
  vault: SubjectVault,
  kinds: EventKinds,
  events: readonly WebhookEventRow[],
): Promise<Message[]> {
  const parsed = events.map((event) => {
    const { customer_sealed, ...rest } = JSON.parse(event.data) as Record<string, unknown>;
    return { event, sealed: customer_sealed, rest, told: kinds.byEventType(event.type)?.events };
  });
  const records = parsed.flatMap(({ event, sealed, told }) =>
    typeof sealed === 'string' &&
    told?.subject?.sealedUnder === 'subject' &&
    event.subject_id !== null
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
  return parsed.map(({ event, sealed, rest, told }) => {
    const index = event.log_index === null ? {} : { log_index: Number(event.log_index) };
    // The record's id first, then whose it is (opened, or null once they were erased), then the
    // rest as the kind wrote it.
    const subject = told?.subject;
    const person = subject && {
      [subject.field]:
        subject.sealedUnder === 'service'
          ? openServiceSealed(vault, event, sealed)
          : (customers.get(event.id) ?? null),
    };
    const data = {
      ...(told?.recordField ? { [told.recordField]: rest[told.recordField] } : {}),
      ...person,
      ...rest,
      ...index,
    };
    return {
      id: event.id,
      body: JSON.stringify({ type: event.type, timestamp: event.occurred_at, data }),
      position: Number(event.position),
    };
  });
}

function openServiceSealed(
  vault: SubjectVault,
  event: WebhookEventRow,
  sealed: unknown,
): string | null {
  if (typeof sealed !== 'string') return null;
  try {
    return vault.accountSecrets.open(serviceSealBinding(event.id), sealed);
  } catch {
    return null;
  }
}

/**
 * Drops the customer id of the events that keep it under the service's secrets (an erasure's)
 * once every subscribed endpoint has been sent them (or no enabled endpoint waits for them any
 * more): it is kept no longer than it takes to tell them.
 */
export async function scrubDeliveredErasures(db: Executor, kinds: EventKinds): Promise<void> {
  const types = kinds.eventTypes.filter(
    (type) => kinds.byEventType(type)?.events?.subject?.sealedUnder === 'service',
  );
  for (const event of await sealedErasures(db, types, 100)) {
    const position = Number(event.position);
    if (await anyBehind(db, event.tenant_id, event.type, position)) continue;
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
