import type { Executor } from '../platform/db.js';
import type { TemplateRow, TemplateVersionRow, TemplateVersionsTable } from './table.js';

export type VersionWithCode = TemplateVersionRow & { template_code: string };

export function findTemplateByCode(
  db: Executor,
  tenantId: string,
  code: string,
): Promise<TemplateRow | undefined> {
  return db
    .selectFrom('templates')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('code', '=', code)
    .executeTakeFirst();
}

function versionsWithCode(db: Executor) {
  return db
    .selectFrom('template_versions as v')
    .innerJoin('templates as t', (join) =>
      join.onRef('t.tenant_id', '=', 'v.tenant_id').onRef('t.id', '=', 'v.template_id'),
    )
    .selectAll('v')
    .select('t.code as template_code');
}

/** The published version with the highest number of a template, by the template's code. */
export function findLatestPublished(
  db: Executor,
  tenantId: string,
  code: string,
): Promise<VersionWithCode | undefined> {
  return versionsWithCode(db)
    .where('t.tenant_id', '=', tenantId)
    .where('t.code', '=', code)
    .where('v.status', '=', 'published')
    .orderBy('v.version', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export function findPublishedById(
  db: Executor,
  tenantId: string,
  id: string,
): Promise<VersionWithCode | undefined> {
  return versionsWithCode(db)
    .where('v.tenant_id', '=', tenantId)
    .where('v.id', '=', id)
    .where('v.status', '=', 'published')
    .executeTakeFirst();
}

/** For the public content file, which carries no key and so no tenant. */
export function findPublishedByIdAnyTenant(
  db: Executor,
  id: string,
): Promise<(VersionWithCode & { template_name: string }) | undefined> {
  return versionsWithCode(db)
    .select('t.name as template_name')
    .where('v.id', '=', id)
    .where('v.status', '=', 'published')
    .executeTakeFirst();
}

export async function highestVersionNumber(
  db: Executor,
  tenantId: string,
  templateId: string,
): Promise<number> {
  const row = await db
    .selectFrom('template_versions')
    .select((eb) => eb.fn.max('version').as('max'))
    .where('tenant_id', '=', tenantId)
    .where('template_id', '=', templateId)
    .executeTakeFirst();
  return Number(row?.max ?? 0);
}

/** A template with its latest published version and its number of drafts, for lists. */
export interface TemplateSummaryRow {
  id: string;
  code: string;
  name: string;
  description: string;
  created_at: string;
  latest_version: number | null;
  latest_tag: string | null;
  latest_published_at: string | null;
  latest_version_id: string | null;
  draft_count: number;
}

export async function listTemplateSummaries(
  db: Executor,
  tenantId: string,
): Promise<TemplateSummaryRow[]> {
  const latest = db
    .selectFrom('template_versions')
    .select(['template_id', (eb) => eb.fn.max('version').as('version')])
    .where('tenant_id', '=', tenantId)
    .where('status', '=', 'published')
    .groupBy('template_id')
    .as('latest');
  const drafts = db
    .selectFrom('template_versions')
    .select(['template_id', (eb) => eb.fn.countAll<number | string>().as('count')])
    .where('tenant_id', '=', tenantId)
    .where('status', '=', 'draft')
    .groupBy('template_id')
    .as('drafts');
  const rows = await db
    .selectFrom('templates as t')
    .leftJoin(latest, 'latest.template_id', 't.id')
    .leftJoin('template_versions as v', (join) =>
      join
        .onRef('v.tenant_id', '=', 't.tenant_id')
        .onRef('v.template_id', '=', 't.id')
        .onRef('v.version', '=', 'latest.version'),
    )
    .leftJoin(drafts, 'drafts.template_id', 't.id')
    .select([
      't.id',
      't.code',
      't.name',
      't.description',
      't.created_at',
      'v.version as latest_version',
      'v.tag as latest_tag',
      'v.published_at as latest_published_at',
      'v.id as latest_version_id',
      'drafts.count as draft_count',
    ])
    .where('t.tenant_id', '=', tenantId)
    .orderBy('t.code')
    .execute();
  return rows.map((row) => ({
    ...row,
    latest_version: row.latest_version === null ? null : Number(row.latest_version),
    draft_count: Number(row.draft_count ?? 0),
  }));
}

/** A template's versions: drafts first (newest first), then published ones, highest first. */
export function listVersionsOf(
  db: Executor,
  tenantId: string,
  templateId: string,
): Promise<TemplateVersionRow[]> {
  return db
    .selectFrom('template_versions')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('template_id', '=', templateId)
    .orderBy((eb) => eb.case().when('status', '=', 'draft').then(0).else(1).end())
    .orderBy('version', 'desc')
    .orderBy('created_at', 'desc')
    .execute();
}

export function findVersionOf(
  db: Executor,
  tenantId: string,
  templateId: string,
  versionId: string,
): Promise<TemplateVersionRow | undefined> {
  return db
    .selectFrom('template_versions')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('template_id', '=', templateId)
    .where('id', '=', versionId)
    .executeTakeFirst();
}

export async function insertTemplate(db: Executor, row: TemplateRow): Promise<void> {
  await db.insertInto('templates').values(row).execute();
}

export async function insertVersion(db: Executor, row: TemplateVersionRow): Promise<void> {
  await db.insertInto('template_versions').values(row).execute();
}

/** Whether a version of the template already carries that tag. */
export async function tagTaken(
  db: Executor,
  tenantId: string,
  templateId: string,
  tag: string,
): Promise<boolean> {
  const clash = await db
    .selectFrom('template_versions')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('template_id', '=', templateId)
    .where('tag', '=', tag)
    .executeTakeFirst();
  return clash !== undefined;
}

/** Changes a version only while it is still a draft. */
export async function updateDraft(
  db: Executor,
  tenantId: string,
  versionId: string,
  changes: Partial<Omit<TemplateVersionsTable, 'tenant_id' | 'id' | 'template_id'>>,
): Promise<void> {
  await db
    .updateTable('template_versions')
    .set(changes)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', versionId)
    .where('status', '=', 'draft')
    .execute();
}
