import type { Executor, Trx } from '../platform/db.js';
import { resolveIdType, sealedColumn, stateOfTenantRow } from '../platform/id-type.js';

// The decisions as records: what their receipts, the log's audit, evidence packs and erasures
// read of them.

/**
 * A decision's columns as its record reads them. The SHA-256 of the text shown is its version's
 * (a published version's text never changes): read from the version, so that the decision's own
 * copy can go (bench/notebook.md, "the text's hash read from its version").
 */
const recordColumns = [
  'd.tenant_id',
  'd.id',
  'd.subject_id',
  'd.template_id',
  'd.consent_version_id',
  'd.version',
  'd.decision',
  'd.seq',
  'd.decided_at',
  'd.api_key_id',
  'v.content_sha256',
  'd.idempotency_key',
] as const;

/**
 * The tenant's decisions, each with its version's columns at hand, and its sealed columns as
 * base64 (`SealedType`): built once the store's types are read (`resolveIdType`).
 */
function decisionRecords(db: Executor) {
  return db
    .selectFrom('decisions as d')
    .innerJoin('template_versions as v', (join) =>
      join.onRef('v.tenant_id', '=', 'd.tenant_id').onRef('v.id', '=', 'd.consent_version_id'),
    )
    .select([
      ...recordColumns,
      sealedColumn(db, 'd.personal').as('personal'),
      sealedColumn<string | null>(db, 'd.evidence_salt').as('evidence_salt'),
    ]);
}

/** One decision of the tenant with its template's code. */
export async function findDecisionWithTemplate(db: Executor, tenantId: string, decisionId: string) {
  await resolveIdType(db);
  return withTemplate(db)
    .where('d.tenant_id', '=', tenantId)
    .where('d.id', '=', decisionId)
    .executeTakeFirst();
}

/** Every decision of one customer with its template's code, oldest first. */
export async function findSubjectDecisionsWithTemplate(
  db: Executor,
  tenantId: string,
  subjectId: string,
) {
  await resolveIdType(db);
  return withTemplate(db)
    .where('d.tenant_id', '=', tenantId)
    .where('d.subject_id', '=', subjectId)
    .orderBy('d.decided_at')
    .orderBy('d.id')
    .execute();
}

function withTemplate(db: Executor) {
  return decisionRecords(db)
    .innerJoin('templates as t', (join) =>
      join.onRef('t.tenant_id', '=', 'd.tenant_id').onRef('t.id', '=', 'd.template_id'),
    )
    .select('t.code as template_code');
}

/** The tenant's decisions of these ids. */
export async function findDecisionsByIds(db: Executor, tenantId: string, ids: readonly string[]) {
  await resolveIdType(db);
  return decisionRecords(db).where('d.tenant_id', '=', tenantId).where('d.id', 'in', ids).execute();
}

/** The templates the customer decided on, each with the version and text of their last decision. */
export async function findDecidedTemplates(trx: Trx, tenantId: string, subjectId: string) {
  await resolveIdType(trx);
  return trx
    .selectFrom('customer_template_states as s')
    .innerJoin('template_versions as v', (j) =>
      j.on('v.tenant_id', '=', tenantId).onRef('v.id', '=', 's.last_consent_version_id'),
    )
    .select(['s.template_id', 'v.version', 'v.content_sha256'])
    .where(stateOfTenantRow(trx, 's', tenantId))
    .where('s.subject_id', '=', subjectId)
    .orderBy('s.template_id')
    .execute();
}

/** An erased subject's current states: their decisions stay, as the proof they were made. */
export async function deleteSubjectStates(trx: Trx, tenantId: string, subjectId: string) {
  await resolveIdType(trx);
  for (const table of ['customer_template_states', 'customer_version_states'] as const) {
    await trx
      .deleteFrom(table)
      .where(stateOfTenantRow(trx, table, tenantId))
      .where('subject_id', '=', subjectId)
      .execute();
  }
}

export async function countSubjectDecisions(
  db: Executor,
  tenantId: string,
  subjectId: string,
): Promise<number> {
  const { count } = await db
    .selectFrom('decisions')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('tenant_id', '=', tenantId)
    .where('subject_id', '=', subjectId)
    .executeTakeFirstOrThrow();
  return Number(count);
}
