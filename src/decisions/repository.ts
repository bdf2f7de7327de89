import { type Executor, isPostgres, type Trx } from '../platform/db.js';
import { statesNameTenant } from '../platform/id-type.js';
import { paramRow, prepared } from '../platform/prepared.js';
import { batchStatement, rowsAs, type UnnestType } from '../platform/unnest.js';
import type { DecisionRow } from './table.js';

// The statements of every decision are prepared (src/platform/prepared.ts).
// They name their columns: on PostgreSQL a prepared `select *` fails once a column is added by
// a newer instance's migration.

type DecisionColumn = keyof DecisionRow & string;

/** Every column of a decision: the record type makes sure none is forgotten. */
const decisionColumns = Object.keys({
  tenant_id: true,
  id: true,
  subject_id: true,
  template_id: true,
  consent_version_id: true,
  version: true,
  decision: true,
  seq: true,
  decided_at: true,
  api_key_id: true,
  personal: true,
  idempotency_key: true,
  evidence_salt: true,
} satisfies Record<DecisionColumn, true>) as DecisionColumn[];

const insertDecision = prepared((db, p: (name: DecisionColumn) => never) =>
  db.insertInto('decisions').values(paramRow(decisionColumns, p)),
);

/**
 * A customer's state names its tenant in a column of its own where the store's states have one
 * (`StateTenant`, id-type.ts: PostgreSQL's before migration 0071, SQLite's before 0073): the
 * column to write (`stateTenant`), and the tenant's first in a list of a state's columns, an
 * insert's or an upsert's conflict's (`withStateTenant`: SQLite's key leads with it while the
 * column is there; 0073 drops both).
 */
function stateTenant<T>(db: Executor, tenant: T): { tenant_id?: T } {
  return statesNameTenant(db) ? { tenant_id: tenant } : {};
}

function withStateTenant<C extends string>(db: Executor, columns: readonly C[]): C[] {
  return (statesNameTenant(db) ? ['tenant_id', ...columns] : [...columns]) as C[];
}

const saveTemplateState = prepared((db, p: (name: DecisionColumn) => never) => {
  const last = {
    last_decision_id: p('id'),
    last_decision: p('decision'),
    last_decided_at: p('decided_at'),
  };
  return db
    .insertInto('customer_template_states')
    .values({
      ...stateTenant(db, p('tenant_id')),
      subject_id: p('subject_id'),
      template_id: p('template_id'),
      decision_count: p('seq'),
      last_consent_version_id: p('consent_version_id'),
      ...last,
    })
    .onConflict((oc) =>
      oc.columns(withStateTenant(db, ['subject_id', 'template_id'])).doUpdateSet({
        decision_count: p('seq'),
        last_consent_version_id: p('consent_version_id'),
        ...last,
      }),
    );
});

const saveVersionState = prepared((db, p: (name: DecisionColumn) => never) => {
  const last = {
    last_decision_id: p('id'),
    last_decision: p('decision'),
    last_decided_at: p('decided_at'),
  };
  return db
    .insertInto('customer_version_states')
    .values({
      ...stateTenant(db, p('tenant_id')),
      subject_id: p('subject_id'),
      consent_version_id: p('consent_version_id'),
      ...last,
    })
    .onConflict((oc) =>
      oc.columns(withStateTenant(db, ['subject_id', 'consent_version_id'])).doUpdateSet(last),
    );
});

// A batch of decisions (record-decisions.ts) writes through the functions below (and reads
// through standing-repository.ts). On PostgreSQL each is a fixed number of set-based statements
// whatever the batch's size (one round trip each), built and compiled once (their values are one
// array a column); on SQLite, where a statement costs no round trip, each row is a prepared
// statement.
// PostgreSQL's upserts of a customer's states name their key by its name: the same whether it
// leads with the tenant or, since migration 0064, with the subject (`StateKey`, id-type.ts),
// where a list of columns matches one form only.

const decisionTypes = {
  tenant_id: 'id',
  id: 'id',
  subject_id: 'id',
  template_id: 'id',
  consent_version_id: 'id',
  version: 'integer',
  decision: 'text',
  seq: 'integer',
  decided_at: 'decision-time',
  api_key_id: 'id',
  personal: 'sealed',
  idempotency_key: 'text',
  evidence_salt: 'sealed',
} as const satisfies Record<DecisionColumn, UnnestType>;

const insertDecisions = batchStatement(
  decisionTypes,
  (db, rows) => db.insertInto('decisions').columns(decisionColumns).expression(rows),
  { writePath: true },
);

/**
 * The columns of a batch a state's upsert reads: the decisions' sealed fields are sent, and
 * decoded, for their insert alone.
 */
function stateTypes<C extends DecisionColumn>(
  columns: readonly C[],
): Pick<typeof decisionTypes, C> {
  return Object.fromEntries(columns.map((column) => [column, decisionTypes[column]])) as Pick<
    typeof decisionTypes,
    C
  >;
}
const templateStateTypes = stateTypes([
  'tenant_id',
  'subject_id',
  'template_id',
  'seq',
  'consent_version_id',
  'id',
  'decision',
  'decided_at',
]);
const versionStateTypes = stateTypes([
  'tenant_id',
  'subject_id',
  'consent_version_id',
  'id',
  'decision',
  'decided_at',
]);

const saveTemplateStates = batchStatement(
  templateStateTypes,
  (db, rows) =>
    db
      .insertInto('customer_template_states')
      .columns(
        withStateTenant(db, [
          'subject_id',
          'template_id',
          'decision_count',
          'last_consent_version_id',
          'last_decision_id',
          'last_decision',
          'last_decided_at',
        ]),
      )
      .expression((eb) =>
        eb
          .selectFrom(rowsAs(rows, 'r'))
          .select([
            ...(statesNameTenant(db) ? (['r.tenant_id'] as const) : []),
            'r.subject_id',
            'r.template_id',
            'r.seq',
            'r.consent_version_id',
            'r.id',
            'r.decision',
            'r.decided_at',
          ]),
      )
      .onConflict((oc) =>
        oc.constraint('customer_template_states_pk').doUpdateSet((eb) => ({
          decision_count: eb.ref('excluded.decision_count'),
          last_consent_version_id: eb.ref('excluded.last_consent_version_id'),
          last_decision_id: eb.ref('excluded.last_decision_id'),
          last_decision: eb.ref('excluded.last_decision'),
          last_decided_at: eb.ref('excluded.last_decided_at'),
        })),
      ),
  { writePath: true },
);

const saveVersionStates = batchStatement(
  versionStateTypes,
  (db, rows) =>
    db
      .insertInto('customer_version_states')
      .columns(
        withStateTenant(db, [
          'subject_id',
          'consent_version_id',
          'last_decision_id',
          'last_decision',
          'last_decided_at',
        ]),
      )
      .expression((eb) =>
        eb
          .selectFrom(rowsAs(rows, 'r'))
          .select([
            ...(statesNameTenant(db) ? (['r.tenant_id'] as const) : []),
            'r.subject_id',
            'r.consent_version_id',
            'r.id',
            'r.decision',
            'r.decided_at',
          ]),
      )
      .onConflict((oc) =>
        oc.constraint('customer_version_states_pk').doUpdateSet((eb) => ({
          last_decision_id: eb.ref('excluded.last_decision_id'),
          last_decision: eb.ref('excluded.last_decision'),
          last_decided_at: eb.ref('excluded.last_decided_at'),
        })),
      ),
  { writePath: true },
);

/**
 * A batch's decisions, and the per-customer states they move: `templateStates` and
 * `versionStates` name each state once, by its latest decision (an upsert touches a row once).
 */
export async function appendDecisions(
  trx: Trx,
  rows: readonly DecisionRow[],
  templateStates: readonly DecisionRow[],
  versionStates: readonly DecisionRow[],
): Promise<void> {
  if (rows.length === 0) return;
  if (!isPostgres(trx)) {
    // Every column is named, absent ones as null: a prepared statement has a fixed shape.
    const values = (row: DecisionRow) => ({ ...row, idempotency_key: row.idempotency_key ?? null });
    for (const row of rows) await insertDecision.run(trx, values(row));
    for (const row of templateStates) await saveTemplateState.run(trx, values(row));
    for (const row of versionStates) await saveVersionState.run(trx, values(row));
    return;
  }
  await insertDecisions.run(trx, rows);
  await saveTemplateStates.run(trx, templateStates);
  await saveVersionStates.run(trx, versionStates);
}
