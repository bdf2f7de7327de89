import { type Insertable, sql } from 'kysely';
import type { Db, Executor, Trx } from '../platform/db.js';
import { resolveIdType, sealedColumn } from '../platform/id-type.js';
import type { ErasuresTable } from './table.js';

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

/** A kind's records of one subject: their ids. */
export async function findSubjectRecordIds(
  db: Executor,
  table: string,
  tenantId: string,
  subjectId: string,
): Promise<string[]> {
  // Every table of records names its subject by (tenant_id, subject_id), in an index of each.
  const rows = await db
    .selectFrom(`${table} as r` as 'decisions as r')
    .select('r.id')
    .where('r.tenant_id', '=', tenantId)
    .where('r.subject_id', '=', subjectId)
    .execute();
  return rows.map((row) => row.id);
}

/** The tombstones among these records, each with the subject commitment it carries. */
export async function findTombstones(db: Executor, tenantId: string, ids: readonly string[]) {
  await resolveIdType(db);
  return db
    .selectFrom('erasures as x')
    .innerJoin('subjects as s', (join) =>
      join.onRef('s.tenant_id', '=', 'x.tenant_id').onRef('s.id', '=', 'x.subject_id'),
    )
    .selectAll('x')
    .select(sealedColumn(db, 's.commitment').as('commitment'))
    .where('x.tenant_id', '=', tenantId)
    .where('x.id', 'in', ids)
    .execute();
}

export async function insertErasure(trx: Trx, row: Insertable<ErasuresTable>): Promise<void> {
  await trx.insertInto('erasures').values(row).execute();
}

/**
 * SQLite: copies the WAL's pages back into the database file and empties the WAL; false when
 * another connection's reader held it up.
 */
export async function checkpointWal(db: Db): Promise<boolean> {
  const { rows } = await sql<{ busy: number }>`pragma wal_checkpoint(truncate)`.execute(db);
  return Number(rows[0]?.busy ?? 0) === 0;
}
