import type { Executor } from '../platform/db.js';
import type { ProcessingRecordFieldsTable } from './table.js';

export function findFields(db: Executor, tenantId: string) {
  return db
    .selectFrom('processing_record_fields')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
}

export async function saveFields(db: Executor, row: ProcessingRecordFieldsTable): Promise<void> {
  const { tenant_id: _, ...rest } = row;
  await db
    .insertInto('processing_record_fields')
    .values(row)
    .onConflict((oc) => oc.column('tenant_id').doUpdateSet(rest))
    .execute();
}
