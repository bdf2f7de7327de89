import { type Executor, isPostgres, type Trx } from '../platform/db.js';
import { resolveIdType, sealedColumn, sealedValue, subjectLookup } from '../platform/id-type.js';
import { paramRow, prepared } from '../platform/prepared.js';
import { batchStatement, type UnnestType } from '../platform/unnest.js';
import type { SubjectsTable } from './table.js';

/** A subject's sealed columns as base64, whichever their type (`SealedType`). */
function keyColumns(db: Executor) {
  return [
    sealedColumn<string | null>(db, 'wrapped_key').as('wrapped_key'),
    sealedColumn<string | null>(db, 'salt').as('salt'),
    sealedColumn(db, 'commitment').as('commitment'),
  ];
}

// Every decision runs these two: they are prepared (src/platform/prepared.ts).

const liveSubject = prepared((db, p: (name: 'tenantId' | 'lookup') => never) =>
  db
    .selectFrom('subjects')
    .select(['id', ...keyColumns(db)])
    .where('tenant_id', '=', p('tenantId'))
    .where('lookup', '=', subjectLookup(db, p('lookup'))),
);

/** The customer with this look-up, unless erased. */
export function findLiveSubject(db: Executor, tenantId: string, lookup: string) {
  return liveSubject.first(db, { tenantId, lookup });
}

type SubjectColumn = keyof SubjectsTable & string;

/** Every column of a subject: the record type makes sure none is forgotten. */
const subjectColumns = Object.keys({
  tenant_id: true,
  id: true,
  lookup: true,
  wrapped_key: true,
  salt: true,
  commitment: true,
  created_at: true,
  erased_at: true,
} satisfies Record<SubjectColumn, true>) as SubjectColumn[];

const newSubject = prepared((db, p: (name: SubjectColumn) => never) =>
  db
    .insertInto('subjects')
    .values({
      ...paramRow(subjectColumns, p),
      lookup: subjectLookup(db, p('lookup')),
      wrapped_key: sealedValue(db, p('wrapped_key')),
      salt: sealedValue(db, p('salt')),
      commitment: sealedValue(db, p('commitment')),
    })
    .onConflict((oc) => oc.columns(['tenant_id', 'lookup']).doNothing()),
);

/** Inserts the subject unless another took the look-up first; true when this one was kept. */
export async function insertSubject(trx: Trx, row: SubjectsTable): Promise<boolean> {
  const result = await newSubject.run(trx, { ...row, erased_at: row.erased_at ?? null });
  return Number(result.numAffectedRows ?? 0) === 1;
}

const subjectTypes = {
  tenant_id: 'id',
  id: 'id',
  lookup: 'subject-lookup',
  wrapped_key: 'sealed',
  salt: 'sealed',
  commitment: 'sealed',
  created_at: 'subject-time',
  erased_at: 'subject-time',
} as const satisfies Record<SubjectColumn, UnnestType>;

const newSubjects = batchStatement(
  subjectTypes,
  (db, rows) =>
    db
      .insertInto('subjects')
      .columns(subjectColumns)
      .expression(rows)
      .onConflict((oc) => oc.columns(['tenant_id', 'lookup']).doNothing()),
  { writePath: true },
);

/**
 * A batch's new subjects: one prepared statement each on SQLite, one set-based statement on
 * PostgreSQL. Answers how many were kept.
 */
export async function insertSubjects(trx: Trx, rows: readonly SubjectsTable[]): Promise<number> {
  if (rows.length === 0) return 0;
  if (rows.length === 1 || !isPostgres(trx)) {
    let kept = 0;
    for (const row of rows) if (await insertSubject(trx, row)) kept += 1;
    return kept;
  }
  const result = await newSubjects.run(trx, rows);
  return Number(result.numAffectedRows ?? 0);
}

/** Subjects by id, erased ones included (their key and salt are null). */
export async function findSubjects(db: Executor, tenantId: string, ids: readonly string[]) {
  await resolveIdType(db);
  return db
    .selectFrom('subjects')
    .select(['id', ...keyColumns(db), 'erased_at'])
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', ids)
    .execute();
}

/** A subject's key, salt and look-up dropped: its sealed fields can never be opened again. */
export async function shredSubjectRow(
  trx: Trx,
  tenantId: string,
  subjectId: string,
  erasedAt: string,
): Promise<void> {
  await trx
    .updateTable('subjects')
    .set({ lookup: null, wrapped_key: null, salt: null, erased_at: erasedAt })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', subjectId)
    .execute();
}

/** Evidence commitments kept for an erased subject's records (`erased_evidence`). */
export async function insertErasedEvidence(
  trx: Trx,
  tenantId: string,
  evidence: ReadonlyMap<string, string>,
): Promise<void> {
  const rows = [...evidence].map(([record_id, commitment]) => ({
    tenant_id: tenantId,
    record_id,
    evidence: commitment,
  }));
  for (let start = 0; start < rows.length; start += 300) {
    await trx
      .insertInto('erased_evidence')
      .values(rows.slice(start, start + 300))
      .execute();
  }
}

/** The evidence commitments kept for these records, those that have one. */
export function findErasedEvidence(db: Executor, tenantId: string, ids: readonly string[]) {
  return db
    .selectFrom('erased_evidence')
    .select(['record_id', 'evidence'])
    .where('tenant_id', '=', tenantId)
    .where('record_id', 'in', ids)
    .execute();
}

/** A subject by id, with its look-up (null once erased) to take its lock by. */
export async function findSubjectById(db: Executor, tenantId: string, id: string) {
  await resolveIdType(db);
  return db
    .selectFrom('subjects')
    .select(['id', 'lookup', ...keyColumns(db)])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}
