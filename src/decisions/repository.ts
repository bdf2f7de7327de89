import { type Executor, isPostgres, type Trx } from '../platform/db.js';
import { paramRow, prepared } from '../platform/prepared.js';
import { type UnnestType, unnestRows, unnestTable } from '../platform/unnest.js';
import type { DecisionRow, IdempotencyKeysTable } from './table.js';

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
  content_sha256: true,
  idempotency_key: true,
  evidence_salt: true,
} satisfies Record<DecisionColumn, true>) as DecisionColumn[];

const insertDecision = prepared((db, p: (name: DecisionColumn) => never) =>
  db.insertInto('decisions').values(paramRow(decisionColumns, p)),
);

const saveTemplateState = prepared((db, p: (name: DecisionColumn) => never) => {
  const last = {
    last_decision_id: p('id'),
    last_decision: p('decision'),
    last_decided_at: p('decided_at'),
  };
  return db
    .insertInto('customer_template_states')
    .values({
      tenant_id: p('tenant_id'),
      subject_id: p('subject_id'),
      template_id: p('template_id'),
      decision_count: p('seq'),
      last_consent_version_id: p('consent_version_id'),
      ...last,
    })
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'subject_id', 'template_id']).doUpdateSet({
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
      tenant_id: p('tenant_id'),
      subject_id: p('subject_id'),
      consent_version_id: p('consent_version_id'),
      ...last,
    })
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'subject_id', 'consent_version_id']).doUpdateSet(last),
    );
});

// A batch of decisions (record-decisions.ts) writes through the functions below (and reads
// through standing-repository.ts). On PostgreSQL each is a fixed number of set-based statements
// whatever the batch's size (one round trip each); on SQLite, where a statement costs no round
// trip, each row is a prepared statement.

const decisionTypes = {
  tenant_id: 'text',
  id: 'text',
  subject_id: 'text',
  template_id: 'text',
  consent_version_id: 'text',
  version: 'integer',
  decision: 'text',
  seq: 'integer',
  decided_at: 'text',
  api_key_id: 'text',
  personal: 'text',
  content_sha256: 'text',
  idempotency_key: 'text',
  evidence_salt: 'text',
} as const satisfies Record<DecisionColumn, UnnestType>;

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
  await trx
    .insertInto('decisions')
    .columns(decisionColumns)
    .expression(unnestRows(rows, decisionTypes))
    .execute();
  await trx
    .insertInto('customer_template_states')
    .columns([
      'tenant_id',
      'subject_id',
      'template_id',
      'decision_count',
      'last_consent_version_id',
      'last_decision_id',
      'last_decision',
      'last_decided_at',
    ])
    .expression((eb) =>
      eb
        .selectFrom(unnestTable(templateStates, decisionTypes, 'r'))
        .select([
          'r.tenant_id',
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
      oc.columns(['tenant_id', 'subject_id', 'template_id']).doUpdateSet((eb) => ({
        decision_count: eb.ref('excluded.decision_count'),
        last_consent_version_id: eb.ref('excluded.last_consent_version_id'),
        last_decision_id: eb.ref('excluded.last_decision_id'),
        last_decision: eb.ref('excluded.last_decision'),
        last_decided_at: eb.ref('excluded.last_decided_at'),
      })),
    )
    .execute();
  await trx
    .insertInto('customer_version_states')
    .columns([
      'tenant_id',
      'subject_id',
      'consent_version_id',
      'last_decision_id',
      'last_decision',
      'last_decided_at',
    ])
    .expression((eb) =>
      eb
        .selectFrom(unnestTable(versionStates, decisionTypes, 'r'))
        .select([
          'r.tenant_id',
          'r.subject_id',
          'r.consent_version_id',
          'r.id',
          'r.decision',
          'r.decided_at',
        ]),
    )
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'subject_id', 'consent_version_id']).doUpdateSet((eb) => ({
        last_decision_id: eb.ref('excluded.last_decision_id'),
        last_decision: eb.ref('excluded.last_decision'),
        last_decided_at: eb.ref('excluded.last_decided_at'),
      })),
    )
    .execute();
}

/** A batch's idempotency records, one per key: the latest answer of each. */
export async function saveIdempotencyRecords(
  trx: Trx,
  records: readonly IdempotencyKeysTable[],
): Promise<void> {
  if (records.length === 0) return;
  if (!isPostgres(trx)) {
    for (const record of records) await saveKey.run(trx, record);
    return;
  }
  await trx
    .insertInto('idempotency_keys')
    .columns([
      'tenant_id',
      'key',
      'customer_lookup',
      'request_hash',
      'status_code',
      'response_body',
      'created_at',
    ])
    .expression(
      unnestRows(records, {
        tenant_id: 'text',
        key: 'text',
        customer_lookup: 'text',
        request_hash: 'text',
        status_code: 'integer',
        response_body: 'text',
        created_at: 'text',
      }),
    )
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'key']).doUpdateSet((eb) => ({
        customer_lookup: eb.ref('excluded.customer_lookup'),
        request_hash: eb.ref('excluded.request_hash'),
        status_code: eb.ref('excluded.status_code'),
        response_body: eb.ref('excluded.response_body'),
        created_at: eb.ref('excluded.created_at'),
      })),
    )
    .execute();
}

/** The records of some keys, each by tenant and key; in one statement. */
export async function findIdempotencyRecordRows(
  trx: Trx,
  keys: readonly { tenant_id: string; key: string }[],
): Promise<IdempotencyKeysTable[]> {
  if (keys.length === 0) return [];
  return trx
    .selectFrom('idempotency_keys')
    .selectAll()
    .where((eb) =>
      eb.or(keys.map((k) => eb.and([eb('tenant_id', '=', k.tenant_id), eb('key', '=', k.key)]))),
    )
    .execute();
}

/** Drops idempotency records past their window; they would only be overwritten otherwise. */
export async function deleteIdempotencyRecordsBefore(
  db: Executor,
  cutoff: string,
): Promise<number> {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where('created_at', '<', cutoff)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

type KeyColumn = keyof IdempotencyKeysTable & string;

const saveKey = prepared((db, p: (name: KeyColumn) => never) =>
  db
    .insertInto('idempotency_keys')
    .values({
      tenant_id: p('tenant_id'),
      key: p('key'),
      customer_lookup: p('customer_lookup'),
      request_hash: p('request_hash'),
      status_code: p('status_code'),
      response_body: p('response_body'),
      created_at: p('created_at'),
    })
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'key']).doUpdateSet({
        customer_lookup: p('customer_lookup'),
        request_hash: p('request_hash'),
        status_code: p('status_code'),
        response_body: p('response_body'),
        created_at: p('created_at'),
      }),
    ),
);
