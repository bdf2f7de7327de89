import type { Executor } from '../platform/db.js';
import { unpublishedStatuses } from './repository.js';
import type { VersionEditRow } from './table.js';

// The queries on `version_edits`: who changed a draft release's text, and how.

export async function insertEdit(db: Executor, row: VersionEditRow): Promise<void> {
  await db.insertInto('version_edits').values(row).execute();
}

/** A release's changes, oldest first. */
export function listEdits(
  db: Executor,
  tenantId: string,
  releaseId: string,
): Promise<VersionEditRow[]> {
  return db
    .selectFrom('version_edits')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('release_id', '=', releaseId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Who wrote each of the tenant's drafts and versions under review, by release. */
export function listAuthorsOfUnpublished(
  db: Executor,
  tenantId: string,
): Promise<Array<Pick<VersionEditRow, 'release_id' | 'user_id'>>> {
  return db
    .selectFrom('version_edits as e')
    .innerJoin('template_versions as v', (join) =>
      join.onRef('v.tenant_id', '=', 'e.tenant_id').onRef('v.id', '=', 'e.release_id'),
    )
    .select(['e.release_id', 'e.user_id'])
    .distinct()
    .where('e.tenant_id', '=', tenantId)
    .where('v.status', 'in', unpublishedStatuses)
    .execute();
}
