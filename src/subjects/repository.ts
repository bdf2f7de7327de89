import { type Insertable, sql } from 'kysely';
import type { Db, Executor, Trx } from '../platform/db.js';
import { paramRow, prepared } from '../platform/prepared.js';
import { unnestRows } from '../platform/unnest.js';
import type { ErasuresTable, SubjectsTable } from './table.js';

// Every decision runs these two: they are prepared (src/platform/prepared.ts).

const liveSubject = prepared((db, p: (name: 'tenantId' | 'lookup') => never) =>
  db
    .selectFrom('subjects')
    .select(['id', 'wrapped_key', 'salt', 'commitment'])
    .where('tenant_id', '=', p('tenantId'))
    .where('lookup', '=', p('lookup')),
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
    .values(paramRow(subjectColumns, p))
    .onConflict((oc) => oc.columns(['tenant_id', 'lookup']).doNothing()),
);

/** Inserts the subject unless another took the look-up first; true when this one was kept. */
export async function insertSubject(trx: Trx, row: SubjectsTable): Promise<boolean> {
  const result = await newSubject.run(trx, { ...row, erased_at: row.erased_at ?? null });
  return Number(result.numAffectedRows ?? 0) === 1;
}

/** A batch's new subjects (PostgreSQL group commit); answers how many were kept. */
export async function insertSubjects(trx: Trx, rows: readonly SubjectsTable[]): Promise<number> {
  if (rows.length === 0) return 0;
  const result = await trx
    .insertInto('subjects')
    .columns(subjectColumns)
    .expression(
      unnestRows(rows, {
        tenant_id: 'text',
        id: 'text',
        lookup: 'text',
        wrapped_key: 'text',
        salt: 'text',
        commitment: 'text',
        created_at: 'text',
        erased_at: 'text',
      }),
    )
    .onConflict((oc) => oc.columns(['tenant_id', 'lookup']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0);
}

/** Subjects by id, erased ones included (their key and salt are null). */
export function findSubjects(db: Executor, tenantId: string, ids: readonly string[]) {
  return db
    .selectFrom('subjects')
    .select(['id', 'wrapped_key', 'salt', 'commitment', 'erased_at'])
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', ids)
    .execute();
}

/**
 * The tenant's erasures in sum: how many customer records were erased, the latest when, and how
 * many decisions they left in the log. Read from the erasures (one per template an erased
 * customer had decided on), which are few, rather than from every subject.
 */
export async function erasureTotals(
  db: Executor,
  tenantId: string,
): Promise<{ customers: number; decisions: number; latestAt: string | null }> {
  const erased = db.selectFrom('erasures').select('subject_id').where('tenant_id', '=', tenantId);
  const sums = await db
    .selectFrom('erasures')
    .select((eb) => [
      eb.fn.count<number | string>('subject_id').distinct().as('customers'),
      eb.fn.max('erased_at').as('latest_at'),
    ])
    .where('tenant_id', '=', tenantId)
    .executeTakeFirstOrThrow();
  if (Number(sums.customers) === 0) return { customers: 0, decisions: 0, latestAt: null };
  const { decisions } = await db
    .selectFrom('decisions')
    .select((eb) => eb.fn.countAll<number | string>().as('decisions'))
    .where('tenant_id', '=', tenantId)
    .where('subject_id', 'in', erased)
    .executeTakeFirstOrThrow();
  return {
    customers: Number(sums.customers),
    decisions: Number(decisions),
    latestAt: sums.latest_at ?? null,
  };
}

/** The templates the customer decided on, each with the version and text of their last decision. */
export function findDecidedTemplates(trx: Trx, tenantId: string, subjectId: string) {
  return trx
    .selectFrom('customer_template_states as s')
    .innerJoin('template_versions as v', (j) =>
      j.onRef('v.tenant_id', '=', 's.tenant_id').onRef('v.id', '=', 's.last_consent_version_id'),
    )
    .select(['s.template_id', 'v.version', 'v.content_sha256'])
    .where('s.tenant_id', '=', tenantId)
    .where('s.subject_id', '=', subjectId)
    .orderBy('s.template_id')
    .execute();
}

export async function insertErasure(trx: Trx, row: Insertable<ErasuresTable>): Promise<void> {
  await trx.insertInto('erasures').values(row).execute();
}

/**
 * Everything an erasure drops besides the key: the customer's current states and their
 * idempotency records (which the decisions feature keeps by the customer's look-up), then the
 * subject's key, salt and look-up themselves.
 */
export async function shredSubject(
  trx: Trx,
  tenantId: string,
  subjectId: string,
  lookup: string,
  erasedAt: string,
): Promise<void> {
  for (const table of ['customer_template_states', 'customer_version_states'] as const) {
    await trx
      .deleteFrom(table)
      .where('tenant_id', '=', tenantId)
      .where('subject_id', '=', subjectId)
      .execute();
  }
  await trx
    .deleteFrom('idempotency_keys')
    .where('tenant_id', '=', tenantId)
    .where('customer_lookup', '=', lookup)
    .execute();
  await trx
    .updateTable('subjects')
    .set({ lookup: null, wrapped_key: null, salt: null, erased_at: erasedAt })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', subjectId)
    .execute();
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

/**
 * SQLite: copies the WAL's pages back into the database file and empties the WAL; false when
 * another connection's reader held it up.
 */
export async function checkpointWal(db: Db): Promise<boolean> {
  const { rows } = await sql<{ busy: number }>`pragma wal_checkpoint(truncate)`.execute(db);
  return Number(rows[0]?.busy ?? 0) === 0;
}
