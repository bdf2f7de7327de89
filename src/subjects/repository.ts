import type { Executor, Trx } from '../platform/db.js';
import type { SubjectsTable } from './table.js';

/** The customer with this look-up, unless erased. */
export function findLiveSubject(db: Executor, tenantId: string, lookup: string) {
  return db
    .selectFrom('subjects')
    .select(['id', 'wrapped_key', 'salt', 'commitment'])
    .where('tenant_id', '=', tenantId)
    .where('lookup', '=', lookup)
    .executeTakeFirst();
}

/** Inserts the subject unless another took the look-up first; true when this one was kept. */
export async function insertSubject(trx: Trx, row: SubjectsTable): Promise<boolean> {
  const result = await trx
    .insertInto('subjects')
    .values(row)
    .onConflict((oc) => oc.columns(['tenant_id', 'lookup']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
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
