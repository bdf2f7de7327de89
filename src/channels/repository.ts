import type { Executor } from '../platform/db.js';
import { resolveIdType, sealedColumn } from '../platform/id-type.js';

/** A subject's states, every product and channel it ever changed. */
export function findSubjectStates(db: Executor, tenantId: string, subjectId: string) {
  return db
    .selectFrom('channel_states')
    .select(['product_id', 'channel', 'blocked', 'change_id', 'since'])
    .where('tenant_id', '=', tenantId)
    .where('subject_id', '=', subjectId)
    .execute();
}

/** A subject's changes, newest first. */
export async function findSubjectChangeRows(
  db: Executor,
  tenantId: string,
  subjectId: string,
  limit: number,
) {
  await resolveIdType(db);
  return db
    .selectFrom('channel_changes')
    .select([
      'id',
      'subject_id',
      'product_code',
      'channel',
      'blocked',
      'api_key_id',
      'user_id',
      sealedColumn(db, 'personal').as('personal'),
      'changed_at',
    ])
    .where('tenant_id', '=', tenantId)
    .where('subject_id', '=', subjectId)
    .orderBy('changed_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
