import type { Executor } from '../platform/db.js';
import { unpublishedStatuses } from './repository.js';
import type { TemplateVersionRow, VersionReviewRow } from './table.js';

// The queries on `version_reviews`, and on the versions waiting for a step of review.

export async function insertReviewStep(db: Executor, row: VersionReviewRow): Promise<void> {
  await db.insertInto('version_reviews').values(row).execute();
}

/** A version's steps of review, oldest first. */
export function listReviewSteps(
  db: Executor,
  tenantId: string,
  versionId: string,
): Promise<VersionReviewRow[]> {
  return db
    .selectFrom('version_reviews')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('version_id', '=', versionId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** A version not yet published nor rejected, with its template, for "Waiting for you". */
export type UnpublishedVersionRow = Pick<
  TemplateVersionRow,
  'id' | 'status' | 'tag' | 'updated_at'
> & { template_code: string; template_name: string };

/** The tenant's drafts and versions under review, most recently changed first. */
export function listUnpublishedVersions(
  db: Executor,
  tenantId: string,
): Promise<UnpublishedVersionRow[]> {
  return db
    .selectFrom('template_versions as v')
    .innerJoin('templates as t', (join) =>
      join.onRef('t.tenant_id', '=', 'v.tenant_id').onRef('t.id', '=', 'v.template_id'),
    )
    .select(['v.id', 'v.status', 'v.tag', 'v.updated_at', 't.code as template_code'])
    .select('t.name as template_name')
    .where('v.tenant_id', '=', tenantId)
    .where('v.status', 'in', unpublishedStatuses)
    .whereRef('v.id', '=', 'v.release_id')
    .orderBy('v.updated_at', 'desc')
    .execute();
}

/** The steps of review of the tenant's drafts and versions under review, oldest first. */
export function listReviewStepsOfUnpublished(
  db: Executor,
  tenantId: string,
): Promise<VersionReviewRow[]> {
  return db
    .selectFrom('version_reviews as r')
    .innerJoin('template_versions as v', (join) =>
      join.onRef('v.tenant_id', '=', 'r.tenant_id').onRef('v.id', '=', 'r.version_id'),
    )
    .selectAll('r')
    .where('r.tenant_id', '=', tenantId)
    .where('v.status', 'in', unpublishedStatuses)
    .orderBy('r.created_at')
    .orderBy('r.id')
    .execute();
}
