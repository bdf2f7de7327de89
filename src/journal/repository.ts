import { type RawBuilder, sql } from 'kysely';
import { type Executor, isPostgres, type Trx } from '../platform/db.js';
import { prepared } from '../platform/prepared.js';
import { batchStatement } from '../platform/unnest.js';
import type { EventType, TlogPendingTable, WebhookEventsTable } from './table.js';

/** A leaf as its writer gives it, with its text; `writeJournal` queues its hash. */
export type NewLeaf = TlogPendingTable;
export type NewEvent = Omit<WebhookEventsTable, 'position' | 'log_index'>;

// Every decision writes a leaf: the single-row statements are prepared (src/platform/prepared.ts).
const leafTypes = { log_id: 'id', record_id: 'id', leaf: 'text', queued_at: 'text' } as const;
const oneLeaf = prepared((db, p: (name: keyof typeof leafTypes) => never) =>
  db.insertInto('tlog_pending').values({
    log_id: p('log_id'),
    record_id: p('record_id'),
    leaf: p('leaf'),
    queued_at: p('queued_at'),
  }),
);

const manyLeaves = batchStatement(
  leafTypes,
  (db, rows) =>
    db
      .insertInto('tlog_pending')
      .columns(Object.keys(leafTypes) as (keyof typeof leafTypes)[])
      .expression(rows),
  { writePath: true },
);

/**
 * Leaves in the caller's transaction: one prepared statement each on SQLite (each a B-tree
 * insert, nothing to gain from one statement), one `insert … select from unnest` on PostgreSQL,
 * where a batch of any size then costs one round trip.
 */
export async function insertLeaves(trx: Trx, rows: readonly TlogPendingTable[]): Promise<void> {
  if (rows.length === 0) return;
  if (rows.length === 1 || !isPostgres(trx)) {
    for (const row of rows) await oneLeaf.run(trx, row);
    return;
  }
  await manyLeaves.run(trx, rows);
}

const eventColumns = {
  tenant_id: 'id',
  id: 'id',
  type: 'text',
  record_id: 'id',
  subject_id: 'id',
  data: 'text',
  occurred_at: 'text',
} as const;

const manyEvents = batchStatement(
  eventColumns,
  (db, rows) =>
    db
      .insertInto('webhook_events')
      .columns(Object.keys(eventColumns) as (keyof typeof eventColumns)[])
      .expression(rows),
  { writePath: true },
);

/** Events in the caller's transaction, as `insertLeaves`: one statement on PostgreSQL. */
export async function insertEvents(trx: Trx, events: readonly NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  if (events.length === 1 || !isPostgres(trx)) {
    for (const event of events) {
      await trx
        .insertInto('webhook_events')
        .values({ ...event, position: null, log_index: null })
        .execute();
    }
    return;
  }
  await manyEvents.run(trx, events);
}

/**
 * Whether an endpoint of the tenant subscribes to an event type, as an SQL expression: the one
 * statement of this rule, so that the PostgreSQL decision batch asks it inside the statement that
 * reads its customers (no extra round trip). `any` counts disabled endpoints too (they resume
 * where they stopped when enabled again); `enabled` only those being sent to.
 */
export function subscribedSql(
  tenantId: RawBuilder<unknown> | string,
  type: RawBuilder<unknown> | string,
  endpoints: 'any' | 'enabled',
): RawBuilder<boolean> {
  const status = endpoints === 'enabled' ? sql`and w.status = 'enabled'` : sql``;
  return sql<boolean>`exists (select 1 from webhook_endpoints as w
    where w.tenant_id = ${tenantId} ${status}
    and w.events like ('%"' || cast(${type} as text) || '"%'))`;
}

const subscribers = {
  any: prepared((db, p: (name: 'tenantId' | 'type') => never) =>
    db.selectNoFrom(subscribedSql(p('tenantId'), p('type'), 'any').as('wanted')),
  ),
  enabled: prepared((db, p: (name: 'tenantId' | 'type') => never) =>
    db.selectNoFrom(subscribedSql(p('tenantId'), p('type'), 'enabled').as('wanted')),
  ),
};

/** Whether an endpoint of the tenant (`enabled`: an enabled one) subscribes to `type`. */
export async function anySubscriber(
  db: Executor,
  tenantId: string,
  type: EventType,
  endpoints: 'any' | 'enabled',
): Promise<boolean> {
  const row = await subscribers[endpoints].first(db, { tenantId, type });
  // SQLite answers 0 or 1.
  return Boolean(row?.wanted);
}
