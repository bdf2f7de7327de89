import type { Executor, Trx } from '../platform/db.js';
import type { DecisionRow, IdempotencyKeysTable } from './table.js';

export function findTemplateState(
  db: Executor,
  tenantId: string,
  subjectId: string,
  templateId: string,
) {
  return db
    .selectFrom('customer_template_states')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('subject_id', '=', subjectId)
    .where('template_id', '=', templateId)
    .executeTakeFirst();
}

export function findVersionState(
  db: Executor,
  tenantId: string,
  subjectId: string,
  versionId: string,
) {
  return db
    .selectFrom('customer_version_states')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('subject_id', '=', subjectId)
    .where('consent_version_id', '=', versionId)
    .executeTakeFirst();
}

/** The customer's state on a version, found by their keyed look-up (one indexed join). */
export function findCustomerVersionState(
  db: Executor,
  tenantId: string,
  lookup: string,
  versionId: string,
) {
  return db
    .selectFrom('subjects as s')
    .innerJoin('customer_version_states as cv', (j) =>
      j.onRef('cv.tenant_id', '=', 's.tenant_id').onRef('cv.subject_id', '=', 's.id'),
    )
    .select(['cv.last_decision', 'cv.last_decided_at'])
    .where('s.tenant_id', '=', tenantId)
    .where('s.lookup', '=', lookup)
    .where('cv.consent_version_id', '=', versionId)
    .executeTakeFirst();
}

export function findDecision(db: Executor, tenantId: string, id: string) {
  return db
    .selectFrom('decisions')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

/** Appends a decision and moves both per-customer states to it, in the caller's transaction. */
export async function appendDecision(trx: Trx, row: DecisionRow): Promise<void> {
  await trx.insertInto('decisions').values(row).execute();
  const last = {
    last_decision_id: row.id,
    last_decision: row.decision,
    last_decided_at: row.decided_at,
  };
  await trx
    .insertInto('customer_template_states')
    .values({
      tenant_id: row.tenant_id,
      subject_id: row.subject_id,
      template_id: row.template_id,
      decision_count: row.seq,
      last_consent_version_id: row.consent_version_id,
      ...last,
    })
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'subject_id', 'template_id']).doUpdateSet({
        decision_count: row.seq,
        last_consent_version_id: row.consent_version_id,
        ...last,
      }),
    )
    .execute();
  await trx
    .insertInto('customer_version_states')
    .values({
      tenant_id: row.tenant_id,
      subject_id: row.subject_id,
      consent_version_id: row.consent_version_id,
      ...last,
    })
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'subject_id', 'consent_version_id']).doUpdateSet(last),
    )
    .execute();
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
