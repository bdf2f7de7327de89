import { sql } from 'kysely';
import { type Executor, isPostgres, type Trx } from '../platform/db.js';
import { paramRow, prepared } from '../platform/prepared.js';
import { type UnnestType, unnestRows } from '../platform/unnest.js';
import type { ChannelChangesTable, ChannelStatesTable } from './table.js';

// A batch of changes (record-changes.ts) writes its rows in one set-based statement a table on
// PostgreSQL (one round trip whatever the batch's size), and a prepared statement a row on
// SQLite, where a statement costs no round trip.

type ChangeColumn = keyof ChannelChangesTable & string;
type StateColumn = keyof ChannelStatesTable & string;

const changeTypes = {
  tenant_id: 'text',
  id: 'text',
  subject_id: 'text',
  product_id: 'text',
  product_code: 'text',
  channel: 'text',
  blocked: 'integer',
  api_key_id: 'text',
  user_id: 'text',
  idempotency_key: 'text',
  personal: 'text',
  evidence_salt: 'text',
  changed_at: 'text',
} as const satisfies Record<ChangeColumn, UnnestType>;
const changeColumns = Object.keys(changeTypes) as ChangeColumn[];

const stateTypes = {
  tenant_id: 'text',
  subject_id: 'text',
  product_id: 'text',
  channel: 'text',
  blocked: 'integer',
  change_id: 'text',
  since: 'text',
} as const satisfies Record<StateColumn, UnnestType>;
const stateColumns = Object.keys(stateTypes) as StateColumn[];

const insertChange = prepared((db, p: (name: ChangeColumn) => never) =>
  db.insertInto('channel_changes').values(paramRow(changeColumns, p)),
);

const upsertState = prepared((db, p: (name: StateColumn) => never) =>
  db
    .insertInto('channel_states')
    .values(paramRow(stateColumns, p))
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'subject_id', 'product_id', 'channel']).doUpdateSet({
        blocked: p('blocked'),
        change_id: p('change_id'),
        since: p('since'),
      }),
    ),
);

/** A batch's changes. */
export async function insertChannelChanges(
  trx: Trx,
  rows: readonly ChannelChangesTable[],
): Promise<void> {
  if (rows.length === 0) return;
  if (!isPostgres(trx)) {
    for (const row of rows) await insertChange.run(trx, row);
    return;
  }
  await trx
    .insertInto('channel_changes')
    .columns(changeColumns)
    .expression(unnestRows(rows, changeTypes))
    .execute();
}

/** A batch's new states, at most one a key (the batch keeps the last change of each). */
export async function saveChannelStates(
  trx: Trx,
  rows: readonly ChannelStatesTable[],
): Promise<void> {
  if (rows.length === 0) return;
  if (!isPostgres(trx)) {
    for (const row of rows) await upsertState.run(trx, row);
    return;
  }
  await sql`
    insert into channel_states (${sql.join(stateColumns.map((c) => sql.id(c)))})
    ${unnestRows(rows, stateTypes)}
    on conflict (tenant_id, subject_id, product_id, channel) do update
    set blocked = excluded.blocked, change_id = excluded.change_id, since = excluded.since
  `.execute(trx);
}

/** A subject's states, every product and channel it ever changed. */
export function findSubjectStates(db: Executor, tenantId: string, subjectId: string) {
  return db
    .selectFrom('channel_states')
    .select(['product_id', 'channel', 'blocked', 'change_id', 'since'])
    .where('tenant_id', '=', tenantId)
    .where('subject_id', '=', subjectId)
    .execute();
}

/** One change of the tenant's, by id. */
export function findChannelChangeRow(db: Executor, tenantId: string, id: string) {
  return db
    .selectFrom('channel_changes')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Every change of one customer's channels (by their subject), oldest first. */
export function findSubjectChanges(db: Executor, tenantId: string, subjectId: string) {
  return db
    .selectFrom('channel_changes')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('subject_id', '=', subjectId)
    .orderBy('changed_at')
    .orderBy('id')
    .execute();
}

/** A subject's changes, newest first. */
export function findSubjectChangeRows(
  db: Executor,
  tenantId: string,
  subjectId: string,
  limit: number,
) {
  return db
    .selectFrom('channel_changes')
    .select([
      'id',
      'subject_id',
      'product_code',
      'channel',
      'blocked',
      'api_key_id',
      'user_id',
      'personal',
      'changed_at',
    ])
    .where('tenant_id', '=', tenantId)
    .where('subject_id', '=', subjectId)
    .orderBy('changed_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
