import { sql } from 'kysely';
import { type Executor, isPostgres, type Trx } from '../platform/db.js';
import { entryOfRecord, resolveLogKey } from '../platform/log-key.js';
import { batchStatement } from '../platform/unnest.js';
import type {
  EventType,
  WebhookDeliveriesTable,
  WebhookDeliveryRow,
  WebhookEndpointRow,
  WebhookEndpointsTable,
  WebhookEventRow,
} from './table.js';

/** Events of these types still holding a customer id sealed by the service, with a position. */
export function sealedErasures(db: Executor, types: readonly string[], limit: number) {
  if (types.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('webhook_events')
    .select(['tenant_id', 'id', 'type', 'position', 'data'])
    .where('type', 'in', types)
    .where('position', 'is not', null)
    .where('data', 'like', '%"customer_sealed"%')
    .limit(limit)
    .execute();
}

/** Whether an enabled endpoint subscribed to `type` has still to be sent `position`. */
export async function anyBehind(db: Executor, tenantId: string, type: EventType, position: number) {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('status', '=', 'enabled')
    .where('events', 'like', `%"${type}"%`)
    .where('cursor', '<', position)
    .executeTakeFirst();
  return row !== undefined;
}

export async function updateEventData(db: Executor, id: string, data: string): Promise<void> {
  await db.updateTable('webhook_events').set({ data }).where('id', '=', id).execute();
}

/** Tenants with events still to be given a position. */
export async function tenantsWithUnsequenced(db: Executor, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('webhook_events')
    .select('tenant_id')
    .distinct()
    .where('position', 'is', null)
    .limit(limit)
    .execute();
  return rows.map((row) => row.tenant_id);
}

export interface Unsequenced {
  id: string;
  record_id: string | null;
  occurred_at: string;
  log_index: number | null;
}

/**
 * A tenant's events without a position, each with its record's index in the decision log (null
 * while the record waits to be appended, or for an event with no record there).
 */
export async function readUnsequenced(
  db: Executor,
  tenantId: string,
  limit: number,
): Promise<Unsequenced[]> {
  const key = await resolveLogKey(db);
  const rows = await db
    .selectFrom('webhook_events as e')
    .leftJoin('tlog_entries as t', (join) =>
      join.on(entryOfRecord(key, 't', 'e.tenant_id', 'e.record_id')),
    )
    .select(['e.id', 'e.record_id', 'e.occurred_at', 't.idx as log_index'])
    .where('e.tenant_id', '=', tenantId)
    .where('e.position', 'is', null)
    // Log order first (null last on both stores): a page cut by the limit never leaves behind
    // a logged event that belongs before one it took.
    .orderBy(sql`t.idx is null`)
    .orderBy('t.idx')
    .orderBy('e.occurred_at')
    .orderBy('e.id')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    ...row,
    log_index: row.log_index === null ? null : Number(row.log_index),
  }));
}

export async function findSequence(db: Executor, tenantId: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('webhook_sequence')
    .select('position')
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
  return row === undefined ? undefined : Number(row.position);
}

/** The compare-and-swap: only the pass that read `from` moves the tenant's sequence. */
export async function moveSequence(
  trx: Trx,
  tenantId: string,
  from: number | undefined,
  to: number,
): Promise<boolean> {
  if (from === undefined) {
    await trx
      .insertInto('webhook_sequence')
      .values({ tenant_id: tenantId, position: to })
      .execute();
    return true;
  }
  const moved = await trx
    .updateTable('webhook_sequence')
    .set({ position: to })
    .where('tenant_id', '=', tenantId)
    .where('position', '=', from)
    .executeTakeFirst();
  return Number(moved.numUpdatedRows) === 1;
}

const positionsOf = batchStatement(
  { id: 'id', position: 'integer', log_index: 'integer' },
  (_db, rows) => sql`update webhook_events as e set position = r.position, log_index = r.log_index
    from (${rows}) as r where e.id = r.id`,
);

/** Gives events their positions (and log indexes): one statement on PostgreSQL. */
export async function setPositions(
  trx: Trx,
  rows: readonly { id: string; position: number; log_index: number | null }[],
): Promise<void> {
  if (rows.length === 0) return;
  if (!isPostgres(trx)) {
    for (const row of rows) {
      await trx
        .updateTable('webhook_events')
        .set({ position: row.position, log_index: row.log_index })
        .where('id', '=', row.id)
        .execute();
    }
    return;
  }
  await positionsOf.run(trx, rows);
}

export async function insertEndpoint(db: Executor, row: WebhookEndpointsTable): Promise<void> {
  await db.insertInto('webhook_endpoints').values(row).execute();
}

export function listEndpointRows(db: Executor, tenantId: string): Promise<WebhookEndpointRow[]> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function findEndpointRow(
  db: Executor,
  tenantId: string,
  id: string,
): Promise<WebhookEndpointRow | undefined> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function updateEndpointRow(
  db: Executor,
  tenantId: string,
  id: string,
  values: Partial<Omit<WebhookEndpointsTable, 'tenant_id' | 'id'>>,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_endpoints')
    .set(values)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteEndpointRows(db: Executor, tenantId: string, id: string) {
  await db
    .deleteFrom('webhook_deliveries')
    .where('tenant_id', '=', tenantId)
    .where('endpoint_id', '=', id)
    .execute();
  await db
    .deleteFrom('webhook_endpoints')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute();
}

/** An endpoint by id alone: the dispatcher's, which serves every tenant. */
export function findEndpointById(
  db: Executor,
  id: string,
): Promise<WebhookEndpointRow | undefined> {
  return db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Enabled endpoints whose next attempt is due and that no instance holds. */
export function dueEndpoints(
  db: Executor,
  now: string,
  limit: number,
): Promise<WebhookEndpointRow[]> {
  return db
    .selectFrom('webhook_endpoints as w')
    .selectAll()
    .where('w.status', '=', 'enabled')
    .where((eb) => eb.or([eb('w.next_attempt_at', 'is', null), eb('w.next_attempt_at', '<=', now)]))
    .where((eb) => eb.or([eb('w.lease_until', 'is', null), eb('w.lease_until', '<', now)]))
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('webhook_sequence as s')
          .select('s.tenant_id')
          .whereRef('s.tenant_id', '=', 'w.tenant_id')
          .whereRef('s.position', '>', 'w.cursor'),
      ),
    )
    .orderBy('w.next_attempt_at')
    .limit(limit)
    .execute();
}

/** The lease, taken by compare-and-swap: only when free (or lapsed), and the endpoint enabled. */
export async function takeLease(
  db: Executor,
  id: string,
  owner: string,
  now: string,
  until: string,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_endpoints')
    .set({ lease_owner: owner, lease_until: until })
    .where('id', '=', id)
    .where('status', '=', 'enabled')
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Changes an endpoint held by `owner`; false when its lease was lost (or it was disabled). */
export async function updateLeased(
  db: Executor,
  id: string,
  owner: string,
  values: Partial<Omit<WebhookEndpointsTable, 'tenant_id' | 'id'>>,
  /** Only while it is enabled and its cursor is still this (a replay or a disable wins). */
  cursor?: number,
): Promise<boolean> {
  let query = db
    .updateTable('webhook_endpoints')
    .set(values)
    .where('id', '=', id)
    .where('lease_owner', '=', owner);
  if (cursor !== undefined) {
    query = query.where('cursor', '=', cursor).where('status', '=', 'enabled');
  }
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The first event after `cursor`, up to `upTo`, of the given types. */
/** The next events after `cursor` (up to `upTo`) of the given types, in position order. */
export function nextEvents(
  db: Executor,
  tenantId: string,
  cursor: number,
  upTo: number,
  types: readonly EventType[],
  limit: number,
): Promise<WebhookEventRow[]> {
  if (types.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('webhook_events')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('position', '>', cursor)
    .where('position', '<=', upTo)
    .where('type', 'in', [...types])
    .orderBy('position')
    .limit(limit)
    .execute();
}

export function findEvent(
  db: Executor,
  tenantId: string,
  id: string,
): Promise<WebhookEventRow | undefined> {
  return db
    .selectFrom('webhook_events')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function insertDelivery(db: Executor, row: WebhookDeliveriesTable): Promise<void> {
  await db.insertInto('webhook_deliveries').values(row).execute();
}

export async function insertDeliveries(
  db: Executor,
  rows: readonly WebhookDeliveriesTable[],
): Promise<void> {
  if (rows.length > 0)
    await db
      .insertInto('webhook_deliveries')
      .values([...rows])
      .execute();
}

/** An endpoint's attempts, newest first, a page at a time (keyset on time and id). */
export function listDeliveryRows(
  db: Executor,
  tenantId: string,
  endpointId: string,
  limit: number,
  before?: { attempted_at: string; id: string },
): Promise<WebhookDeliveryRow[]> {
  let query = db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('endpoint_id', '=', endpointId);
  if (before) {
    query = query.where((eb) =>
      eb.or([
        eb('attempted_at', '<', before.attempted_at),
        eb.and([eb('attempted_at', '=', before.attempted_at), eb('id', '<', before.id)]),
      ]),
    );
  }
  return query.orderBy('attempted_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

export function findDeliveryRow(
  db: Executor,
  tenantId: string,
  id: string,
): Promise<WebhookDeliveryRow | undefined> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/**
 * What waits to be sent, every tenant together, in one statement for a scrape: events not yet
 * given a position, positions enabled endpoints have still to pass (each endpoint's tenant's
 * last position less its cursor: an upper bound, since it counts events of types the endpoint
 * does not take), and endpoints failing or disabled.
 */
export async function backlogCounts(db: Executor) {
  const row = await db
    .selectNoFrom((eb) => [
      eb
        .selectFrom('webhook_events')
        .select(eb.fn.countAll<number | string>().as('n'))
        .where('position', 'is', null)
        .as('unsequenced'),
      eb
        .selectFrom('webhook_endpoints as e')
        .innerJoin('webhook_sequence as s', 's.tenant_id', 'e.tenant_id')
        .select(sql<number | string | null>`sum(s.position - e.cursor)`.as('n'))
        .where('e.status', '=', 'enabled')
        .whereRef('s.position', '>', 'e.cursor')
        .as('behind'),
      eb
        .selectFrom('webhook_endpoints')
        .select(eb.fn.countAll<number | string>().as('n'))
        .where('status', '=', 'enabled')
        .where('failures', '>', 0)
        .as('failing'),
      eb
        .selectFrom('webhook_endpoints')
        .select(eb.fn.countAll<number | string>().as('n'))
        .where('status', '=', 'disabled')
        .as('disabled'),
    ])
    .executeTakeFirstOrThrow();
  return {
    unsequenced: Number(row.unsequenced ?? 0),
    behind: Number(row.behind ?? 0),
    failing: Number(row.failing ?? 0),
    disabled: Number(row.disabled ?? 0),
  };
}
