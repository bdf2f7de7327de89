import { randomBytes } from 'node:crypto';
import { type Actor, recordAudit } from '../audit-trail/index.js';
import type { WebhookSettings } from '../platform/config.js';
import type { Db, Executor, Trx } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/time.js';
import type { SubjectVault } from '../subjects/index.js';
import { checkUrl } from './address-policy.js';
import {
  type DeliveryView,
  deliveryView,
  type EventKinds,
  messageOf,
  recordAttempt,
} from './delivery.js';

export type { DeliveryView };

import {
  backlogCounts,
  deleteEndpointRows,
  findDeliveryRow,
  findEndpointRow,
  findEvent,
  findSequence,
  insertEndpoint,
  listDeliveryRows,
  listEndpointRows,
  updateEndpointRow,
} from './repository.js';
import { newSecret, sendOnce } from './send.js';
import { sequenceTenant } from './sequencer.js';
import type { EventType, WebhookEndpointRow } from './table.js';

/**
 * An endpoint as the command line and the back-office show it: its row without the tenant, the
 * sealed secret, the lease and `updated_at`, its events parsed.
 */
export type EndpointView = Omit<
  WebhookEndpointRow,
  | 'tenant_id'
  | 'events'
  | 'secret_sealed'
  | 'previous_secret_sealed'
  | 'lease_owner'
  | 'lease_until'
  | 'updated_at'
> & { events: EventType[] };

export function endpointView(row: WebhookEndpointRow): EndpointView {
  const {
    tenant_id: _tenant,
    secret_sealed: _secret,
    previous_secret_sealed: _previous,
    lease_owner: _owner,
    lease_until: _until,
    updated_at: _updated,
    ...shown
  } = row;
  return {
    ...shown,
    events: JSON.parse(row.events) as EventType[],
    // PostgreSQL's bigint and integer columns may come back as strings.
    cursor: Number(row.cursor),
    failures: Number(row.failures),
  };
}

export interface EndpointInput {
  url: string;
  events: readonly string[];
  description?: string | undefined;
}

const refuse = (field: string, issue: string) =>
  new AppError('invalidRequest', { details: [{ field, issue }] });

/** The event types asked for, each known, at least one; `400 1001` naming `events` otherwise. */
export function parseEventTypes(
  eventTypes: readonly EventType[],
  asked: readonly string[],
): EventType[] {
  const wanted = [...new Set(asked.map((type) => type.trim()).filter((type) => type !== ''))];
  if (wanted.length === 0)
    throw refuse('events', `must name at least one of ${eventTypes.join(', ')}`);
  for (const type of wanted) {
    if (!eventTypes.includes(type)) {
      throw refuse('events', `${type} is not one of ${eventTypes.join(', ')}`);
    }
  }
  return wanted as EventType[];
}

/** The secret is sealed under the data key, bound to its endpoint (as two-factor keys are). */
const sealedFor = (id: string) => `webhook-endpoint:${id}`;

/**
 * The secrets a delivery is signed under at `now`: the endpoint's, and the one before its last
 * rotation while that still signs (`WEBHOOK_SECRET_OVERLAP_MS` after the rotation).
 */
export function signingSecrets(
  vault: SubjectVault,
  row: WebhookEndpointRow,
  now: string = nowIso(),
): string[] {
  const secrets = [vault.accountSecrets.open(sealedFor(row.id), row.secret_sealed)];
  const { previous_secret_sealed: previous, previous_secret_signs_until: until } = row;
  if (previous !== null && until !== null && until > now)
    secrets.push(vault.accountSecrets.open(sealedFor(row.id), previous));
  return secrets;
}

/**
 * Registers an endpoint; answers it with its signing secret, which is shown this once. It gets
 * the events that take a position from now on (its cursor starts at the tenant's latest). It
 * takes the store, not a transaction: the sequencer's pass that must commit first is a
 * transaction of its own, and the endpoint and its audit entry are then written in one more.
 */
export async function createEndpoint(
  db: Db,
  vault: SubjectVault,
  settings: WebhookSettings,
  kinds: EventKinds,
  actor: Actor & { tenantId: string },
  input: EndpointInput,
): Promise<{ endpoint: EndpointView; secret: string }> {
  const url = checkUrl(input.url.trim(), settings).toString();
  const events = parseEventTypes(kinds.eventTypes, input.events);
  const description = (input.description ?? '').trim();
  if (description.length > 200) throw refuse('description', 'must be at most 200 characters');
  const id = newId();
  const secret = newSecret(randomBytes);
  const now = nowIso();
  // Events committed before now take their positions first, so that the new endpoint starts
  // after them (a decision not yet in the log may still follow); a pass running meanwhile is
  // waited for, or the cursor could be read before its positions are.
  await sequenceTenant(db, actor.tenantId, true);
  return db.transaction().execute(async (trx) => {
    const row = {
      tenant_id: actor.tenantId,
      id,
      url,
      events: JSON.stringify(events),
      description,
      secret_sealed: vault.accountSecrets.seal(sealedFor(id), secret),
      previous_secret_sealed: null,
      previous_secret_signs_until: null,
      status: 'enabled' as const,
      disabled_reason: null,
      disabled_at: null,
      cursor: (await findSequence(trx, actor.tenantId)) ?? 0,
      failing_since: null,
      failures: 0,
      next_attempt_at: null,
      lease_owner: null,
      lease_until: null,
      created_at: now,
      updated_at: now,
    };
    await insertEndpoint(trx, row);
    await recordAudit(trx, {
      ...actor,
      action: 'webhook.created',
      target: url,
      details: { endpoint_id: id, events },
    });
    return { endpoint: endpointView(row), secret };
  });
}

export async function listEndpoints(db: Executor, tenantId: string): Promise<EndpointView[]> {
  return (await listEndpointRows(db, tenantId)).map(endpointView);
}

/** The tenant's endpoint; `404 1004` for an id it has not (another tenant's included). */
export async function getEndpoint(
  db: Executor,
  tenantId: string,
  id: string,
): Promise<EndpointView> {
  return endpointView(await endpointRow(db, tenantId, id));
}

async function endpointRow(db: Executor, tenantId: string, id: string) {
  const row = await findEndpointRow(db, tenantId, id);
  if (!row) throw new AppError('notFound', { message: 'Webhook endpoint not found.' });
  return row;
}

/** Stops deliveries to it; they resume where they stopped when it is enabled again. */
export async function disableEndpoint(
  trx: Trx,
  actor: Actor & { tenantId: string },
  id: string,
): Promise<EndpointView> {
  const now = nowIso();
  return changeEndpoint(trx, actor, id, 'webhook.disabled', {
    status: 'disabled' as const,
    disabled_reason: 'Disabled by hand.',
    disabled_at: now,
    updated_at: now,
  });
}

/** Enables it again: the event that failed (or the next) is tried at once. */
export async function enableEndpoint(
  trx: Trx,
  actor: Actor & { tenantId: string },
  id: string,
): Promise<EndpointView> {
  return changeEndpoint(trx, actor, id, 'webhook.enabled', {
    status: 'enabled' as const,
    disabled_reason: null,
    disabled_at: null,
    failing_since: null,
    failures: 0,
    next_attempt_at: null,
    updated_at: nowIso(),
  });
}

/** Changes an endpoint's state and writes the audit entry, in the caller's transaction. */
async function changeEndpoint(
  trx: Trx,
  actor: Actor & { tenantId: string },
  id: string,
  action: 'webhook.disabled' | 'webhook.enabled' | 'webhook.replayed',
  values: Parameters<typeof updateEndpointRow>[3],
  details: Record<string, unknown> = {},
): Promise<EndpointView> {
  const row = await endpointRow(trx, actor.tenantId, id);
  await updateEndpointRow(trx, actor.tenantId, id, values);
  await recordAudit(trx, {
    ...actor,
    action,
    target: row.url,
    details: { endpoint_id: id, ...details },
  });
  return endpointView({ ...row, ...values });
}

export async function deleteEndpoint(
  trx: Trx,
  actor: Actor & { tenantId: string },
  id: string,
): Promise<{ id: string; deleted: true }> {
  const row = await endpointRow(trx, actor.tenantId, id);
  await deleteEndpointRows(trx, actor.tenantId, id);
  await recordAudit(trx, {
    ...actor,
    action: 'webhook.deleted',
    target: row.url,
    details: { endpoint_id: id },
  });
  return { id, deleted: true };
}

/**
 * A new signing secret, shown this once. The old one goes on signing beside it for
 * `secretOverlapMs` from `now` (the rotation's time), so that a receiver verifying with either
 * loses nothing while it is changed over; a secret older than the old one stops at once.
 */
export async function rotateSecret(
  trx: Trx,
  vault: SubjectVault,
  actor: Actor & { tenantId: string },
  id: string,
  settings: Pick<WebhookSettings, 'secretOverlapMs'>,
  now: Date = new Date(),
): Promise<{ id: string; secret: string; previous_secret_signs_until: string | null }> {
  const row = await endpointRow(trx, actor.tenantId, id);
  const secret = newSecret(randomBytes);
  const sealed = vault.accountSecrets.seal(sealedFor(id), secret);
  const until =
    settings.secretOverlapMs > 0
      ? new Date(now.getTime() + settings.secretOverlapMs).toISOString()
      : null;
  await updateEndpointRow(trx, actor.tenantId, id, {
    secret_sealed: sealed,
    previous_secret_sealed: until === null ? null : row.secret_sealed,
    previous_secret_signs_until: until,
    updated_at: now.toISOString(),
  });
  await recordAudit(trx, {
    ...actor,
    action: 'webhook.secret_rotated',
    target: row.url,
    details: { endpoint_id: id, previous_secret_signs_until: until },
  });
  return { id, secret, previous_secret_signs_until: until };
}

/**
 * Sets the endpoint's cursor back (or forward) so that every event from position `from` on that
 * it subscribes to is sent again, in order; a failing head is forgotten and tried afresh.
 * It also takes the lease from a turn in flight: that turn checks the cursor it started from,
 * which a replay from just after it writes again unchanged, so only the lost lease tells it to
 * stop before it moves the cursor past the replay.
 */
export async function replayFrom(
  trx: Trx,
  actor: Actor & { tenantId: string },
  id: string,
  from: number,
): Promise<EndpointView> {
  if (!Number.isSafeInteger(from) || from < 1)
    throw refuse('from', 'must be a position, 1 or more');
  const values = {
    cursor: from - 1,
    failing_since: null,
    failures: 0,
    next_attempt_at: null,
    lease_owner: null,
    lease_until: null,
    updated_at: nowIso(),
  };
  return changeEndpoint(trx, actor, id, 'webhook.replayed', values, { from });
}

/** The endpoint's delivery attempts, newest first, `limit` a page; `before` is a delivery id. */
export async function listDeliveries(
  db: Executor,
  tenantId: string,
  endpointId: string,
  limit: number,
  before?: string,
): Promise<{ deliveries: DeliveryView[]; next: string | null }> {
  const after = before ? await findDeliveryRow(db, tenantId, before) : undefined;
  const rows = await listDeliveryRows(db, tenantId, endpointId, limit + 1, after);
  const page = rows.slice(0, limit).map(deliveryView);
  return { deliveries: page, next: rows.length > limit ? (page.at(-1)?.id ?? null) : null };
}

/**
 * "Send again": sends the event of one earlier delivery now, once, outside the endpoint's order
 * (its cursor does not move), and records the attempt.
 */
export async function resendDelivery(
  db: Db,
  vault: SubjectVault,
  settings: WebhookSettings,
  kinds: EventKinds,
  tenantId: string,
  deliveryId: string,
): Promise<DeliveryView> {
  const delivery = await findDeliveryRow(db, tenantId, deliveryId);
  if (!delivery) throw new AppError('notFound', { message: 'Delivery not found.' });
  const endpoint = await endpointRow(db, tenantId, delivery.endpoint_id);
  const event = await findEvent(db, tenantId, delivery.event_id);
  if (!event) throw new AppError('notFound', { message: 'Event not found.' });
  const result = await sendOnce(
    endpoint.url,
    signingSecrets(vault, endpoint),
    await messageOf(db, vault, kinds, event),
    settings,
    settings.timeoutMs,
  );
  return recordAttempt(db, endpoint, event, result, 'resend');
}

/** What the webhooks have still to send, for `/metrics` (docs/metrics.md). */
export interface WebhookBacklog {
  /** Events written but not yet given a position by the sequencer. */
  unsequenced: number;
  /** Positions enabled endpoints have still to pass: an upper bound on the events they wait for. */
  behind: number;
  /** Enabled endpoints whose event at the head has failed and waits for its retry. */
  failing: number;
  disabled: number;
}

/** The backlog, every tenant together, in one statement (what `/metrics` shows). */
export function webhookBacklog(db: Executor): Promise<WebhookBacklog> {
  return backlogCounts(db);
}
