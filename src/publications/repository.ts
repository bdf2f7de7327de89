import type { Executor, Trx } from '../platform/db.js';
import type { PublicationRow } from './table.js';

export async function insertPublication(trx: Trx, row: PublicationRow): Promise<void> {
  await trx.insertInto('publications').values(row).execute();
}

/** The tenant's publications of these ids (the log's audit: at most 500 at a time). */
export function findPublicationsByIds(db: Executor, tenantId: string, ids: readonly string[]) {
  return db
    .selectFrom('publications')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', ids)
    .execute();
}

/** The ids of every publication of a template's (or configuration's) version, oldest first. */
export async function findPublicationIdsOf(
  db: Executor,
  tenantId: string,
  ofId: string,
  version: number,
): Promise<string[]> {
  const rows = await db
    .selectFrom('publications')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('of_id', '=', ofId)
    .where('version', '=', version)
    .orderBy('published_at')
    .execute();
  return rows.map((row) => row.id);
}

/**
 * The tenant's templates' publications made by `at`, newest first: what was live for each
 * template then is its first row here (the section 39 record as of a date).
 */
export function findTemplatePublicationsBy(db: Executor, tenantId: string, at: string) {
  return db
    .selectFrom('publications')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('what', '=', 'template')
    .where('effective_at', '<=', at)
    .orderBy('effective_at', 'desc')
    .orderBy('version', 'desc')
    .execute();
}
