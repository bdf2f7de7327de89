import type { Executor, Trx } from '../platform/db.js';
import { paramRow, prepared } from '../platform/prepared.js';
import type { DecisionRow, IdempotencyKeysTable } from './table.js';

// The statements of every decision and every `pending` are prepared (src/platform/prepared.ts).
// They name their columns: on PostgreSQL a prepared `select *` fails once a column is added by
// a newer instance's migration.

const templateState = prepared((db, p: (name: 'tenantId' | 'subjectId' | 'templateId') => never) =>
  db
    .selectFrom('customer_template_states')
    .select(['decision_count', 'last_decision'])
    .where('tenant_id', '=', p('tenantId'))
    .where('subject_id', '=', p('subjectId'))
    .where('template_id', '=', p('templateId')),
);

export function findTemplateState(
  db: Executor,
  tenantId: string,
  subjectId: string,
  templateId: string,
) {
  return templateState.first(db, { tenantId, subjectId, templateId });
}

const versionState = prepared((db, p: (name: 'tenantId' | 'subjectId' | 'releaseId') => never) =>
  db
    .selectFrom('customer_version_states as cv')
    .innerJoin('template_versions as v', (j) =>
      j.onRef('v.tenant_id', '=', 'cv.tenant_id').onRef('v.id', '=', 'cv.consent_version_id'),
    )
    .select(['cv.last_decision', 'cv.last_decision_id'])
    .where('cv.tenant_id', '=', p('tenantId'))
    .where('cv.subject_id', '=', p('subjectId'))
    .where('v.release_id', '=', p('releaseId'))
    .orderBy('cv.last_decided_at', 'desc')
    .limit(1),
);

/** The customer's state on a release: on its most recently decided locale's variant. */
export function findVersionState(
  db: Executor,
  tenantId: string,
  subjectId: string,
  releaseId: string,
) {
  return versionState.first(db, { tenantId, subjectId, releaseId });
}

const customerVersionState = prepared(
  (db, p: (name: 'tenantId' | 'lookup' | 'versionId') => never) =>
    db
      .selectFrom('subjects as s')
      .innerJoin('customer_version_states as cv', (j) =>
        j.onRef('cv.tenant_id', '=', 's.tenant_id').onRef('cv.subject_id', '=', 's.id'),
      )
      .select(['cv.last_decision', 'cv.last_decided_at'])
      .where('s.tenant_id', '=', p('tenantId'))
      .where('s.lookup', '=', p('lookup'))
      .where('cv.consent_version_id', '=', p('versionId')),
);

/** The customer's state on a version, found by their keyed look-up (one indexed join). */
export function findCustomerVersionState(
  db: Executor,
  tenantId: string,
  lookup: string,
  versionId: string,
) {
  return customerVersionState.first(db, { tenantId, lookup, versionId });
}

export function findDecision(db: Executor, tenantId: string, id: string) {
  return db
    .selectFrom('decisions')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

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

/** Appends a decision and moves both per-customer states to it, in the caller's transaction. */
export async function appendDecision(trx: Trx, row: DecisionRow): Promise<void> {
  // Every column is named, absent ones as null: a prepared statement has a fixed shape.
  const values = { ...row, idempotency_key: row.idempotency_key ?? null };
  await insertDecision.run(trx, values);
  await saveTemplateState.run(trx, values);
  await saveVersionState.run(trx, values);
}

export function findIdempotencyRecord(db: Executor, tenantId: string, key: string) {
  return db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('key', '=', key)
    .executeTakeFirst();
}

export async function saveIdempotencyRecord(trx: Trx, record: IdempotencyKeysTable): Promise<void> {
  await trx
    .insertInto('idempotency_keys')
    .values(record)
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'key']).doUpdateSet({
        customer_lookup: record.customer_lookup,
        request_hash: record.request_hash,
        status_code: record.status_code,
        response_body: record.response_body,
        created_at: record.created_at,
      }),
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
