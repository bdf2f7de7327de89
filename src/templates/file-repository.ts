import type { Executor } from '../platform/db.js';
import type { ContentFileRow } from './table.js';

// The queries on `content_files`: a version's uploaded file.

/** Keeps a version's uploaded content file, in place of any it had. */
export async function replaceContentFile(db: Executor, row: ContentFileRow): Promise<void> {
  await deleteContentFile(db, row.tenant_id, row.version_id);
  await db.insertInto('content_files').values(row).execute();
}

export async function deleteContentFile(
  db: Executor,
  tenantId: string,
  versionId: string,
): Promise<void> {
  await db
    .deleteFrom('content_files')
    .where('tenant_id', '=', tenantId)
    .where('version_id', '=', versionId)
    .execute();
}

export function findContentFile(
  db: Executor,
  tenantId: string,
  versionId: string,
): Promise<ContentFileRow | undefined> {
  return db
    .selectFrom('content_files')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('version_id', '=', versionId)
    .executeTakeFirst();
}

/** The uploaded content files of these versions (those that have one). */
export function findContentFiles(
  db: Executor,
  tenantId: string,
  versionIds: readonly string[],
): Promise<ContentFileRow[]> {
  if (versionIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('content_files')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('version_id', 'in', versionIds)
    .execute();
}
