import { sql } from 'kysely';
import { type Executor, isPostgres, type Trx } from '../platform/db.js';
import { paramRow, prepared } from '../platform/prepared.js';
import { type UnnestType, unnestRows } from '../platform/unnest.js';
import type { PartnerBlockChangesTable, PartnerBlockStatesTable } from './table.js';

// A batch of changes (record-changes.ts) writes its rows in one set-based statement a table on
// PostgreSQL (one round trip whatever the batch's size), and a prepared statement a row on
// SQLite, where a statement costs no round trip.

type ChangeColumn = keyof PartnerBlockChangesTable & string;
type StateColumn = keyof PartnerBlockStatesTable & string;

const changeTypes = {
  tenant_id: 'text',
  id: 'text',
  subject_id: 'text',
  decision_id: 'text',
  partner_code: 'text',
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
  decision_id: 'text',
  partner_code: 'text',
  subject_id: 'text',
  blocked: 'integer',
  change_id: 'text',
  since: 'text',
} as const satisfies Record<StateColumn, UnnestType>;
const stateColumns = Object.keys(stateTypes) as StateColumn[];

const insertChange = prepared((db, p: (name: ChangeColumn) => never) =>
  db.insertInto('partner_block_changes').values(paramRow(changeColumns, p)),
);

const upsertState = prepared((db, p: (name: StateColumn) => never) =>
  db
    .insertInto('partner_block_states')
    .values(paramRow(stateColumns, p))
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'decision_id', 'partner_code']).doUpdateSet({
        blocked: p('blocked'),
        change_id: p('change_id'),
        since: p('since'),
      }),
    ),
);

/** A batch's changes. */
export async function insertPartnerBlockChanges(
  trx: Trx,
  rows: readonly PartnerBlockChangesTable[],
): Promise<void> {
  if (rows.length === 0) return;
  if (!isPostgres(trx)) {
    for (const row of rows) await insertChange.run(trx, row);
    return;
  }
  await trx
    .insertInto('partner_block_changes')
    .columns(changeColumns)
    .expression(unnestRows(rows, changeTypes))
    .execute();
}

/** A batch's new states, at most one a key (the batch keeps the last change of each). */
export async function savePartnerBlockStates(
  trx: Trx,
  rows: readonly PartnerBlockStatesTable[],
): Promise<void> {
  if (rows.length === 0) return;
  if (!isPostgres(trx)) {
    for (const row of rows) await upsertState.run(trx, row);
    return;
  }
  await sql`
    insert into partner_block_states (${sql.join(stateColumns.map((c) => sql.id(c)))})
    ${unnestRows(rows, stateTypes)}
    on conflict (tenant_id, decision_id, partner_code) do update
    set blocked = excluded.blocked, change_id = excluded.change_id, since = excluded.since
  `.execute(trx);
}

/**
 * A decision of the tenant with its customer's subject (and its sealed fields, which open the
 * customer id) and the release it was made on.
 */
export function findDecisionOfRelease(db: Executor, tenantId: string, decisionId: string) {
  return db
    .selectFrom('decisions as d')
    .innerJoin('template_versions as v', (join) =>
      join.onRef('v.tenant_id', '=', 'd.tenant_id').onRef('v.id', '=', 'd.consent_version_id'),
    )
    .select(['d.id', 'd.subject_id', 'd.personal', 'v.release_id'])
    .where('d.tenant_id', '=', tenantId)
    .where('d.id', '=', decisionId)
    .executeTakeFirst();
}

/** A decision's states, every partner ever blocked or allowed again on it. */
export function findDecisionStates(db: Executor, tenantId: string, decisionId: string) {
  return db
    .selectFrom('partner_block_states')
    .select(['partner_code', 'blocked', 'change_id', 'since'])
    .where('tenant_id', '=', tenantId)
    .where('decision_id', '=', decisionId)
    .execute();
}

/** The changes of these decisions made at or before `at`, oldest first. */
export function findChangesAsOf(
  db: Executor,
  tenantId: string,
  decisionIds: readonly string[],
  at: string,
) {
  return db
    .selectFrom('partner_block_changes')
    .select(['decision_id', 'partner_code', 'blocked'])
    .where('tenant_id', '=', tenantId)
    .where('decision_id', 'in', decisionIds)
    .where('changed_at', '<=', at)
    .orderBy('changed_at')
    .orderBy('id')
    .execute();
}

/** One change of the tenant's, by id. */
export function findPartnerBlockChangeRow(db: Executor, tenantId: string, id: string) {
  return db
    .selectFrom('partner_block_changes')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Every change of one customer's partner blocks (by their subject), oldest first. */
export function findSubjectPartnerBlockChanges(db: Executor, tenantId: string, subjectId: string) {
  return db
    .selectFrom('partner_block_changes')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('subject_id', '=', subjectId)
    .orderBy('changed_at')
    .orderBy('id')
    .execute();
}
