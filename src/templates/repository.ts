import type { Executor } from '../platform/db.js';
import { isLive } from './live.js';
import type {
  TemplateRow,
  TemplateVersionRow,
  TemplateVersionsTable,
  VersionStatus,
} from './table.js';

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

export function versionsWithCode(db: Executor) {
  return db
    .selectFrom('template_versions as v')
    .innerJoin('templates as t', (join) =>
      join.onRef('t.tenant_id', '=', 'v.tenant_id').onRef('t.id', '=', 'v.template_id'),
    )
    .selectAll('v')
    .select('t.code as template_code');
}

/** These versions of the tenant (by `consent_version_id`), with their template's code. */
export function findVersionsWithCode(
  db: Executor,
  tenantId: string,
  ids: readonly string[],
): Promise<VersionWithCode[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return versionsWithCode(db)
    .where('v.tenant_id', '=', tenantId)
    .where('v.id', 'in', ids)
    .execute();
}

/**
 * The live version with the highest number of a template, by the template's code; none for an
 * archived template. A version is live once published and its effective time (`published_at`)
 * has come: a release scheduled for later is published with its future time, and no finder of
 * the API sees it before then.
 */
export function findLatestPublished(
  db: Executor,
  tenantId: string,
  code: string,
): Promise<VersionWithCode | undefined> {
  return versionsWithCode(db)
    .where('t.tenant_id', '=', tenantId)
    .where('t.code', '=', code)
    .where('t.archived_at', 'is', null)
    .where(isLive('v'))
    .whereRef('v.id', '=', 'v.release_id')
    .orderBy('v.version', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** A variant of a release, with its template's code, default locale and validity period. */
export type VariantWithTemplate = VersionWithCode & {
  default_locale: string;
  validity_months: number | null;
  representation: string | null;
};

/**
 * Every locale's variant of the template's latest live release, by the template's code; none for
 * an archived template.
 */
/** What a decision checks of a template in use, as stored: its sensitive data and its rule. */
export function findDecisionRules(
  db: Executor,
  tenantId: string,
  code: string,
): Promise<{ data_categories: string | null; representation: string | null } | undefined> {
  return db
    .selectFrom('templates')
    .select(['data_categories', 'representation'])
    .where('tenant_id', '=', tenantId)
    .where('code', '=', code)
    .where('archived_at', 'is', null)
    .executeTakeFirst();
}

export function findLatestRelease(
  db: Executor,
  tenantId: string,
  code: string,
): Promise<VariantWithTemplate[]> {
  return versionsWithCode(db)
    .select(['t.default_locale', 't.validity_months', 't.representation'])
    .where('t.tenant_id', '=', tenantId)
    .where('t.code', '=', code)
    .where('t.archived_at', 'is', null)
    .where('v.version', '=', (eb) =>
      eb
        .selectFrom('template_versions as x')
        .select((x) => x.fn.max('x.version').as('latest'))
        .whereRef('x.tenant_id', '=', 't.tenant_id')
        .whereRef('x.template_id', '=', 't.id')
        .where(isLive('x')),
    )
    .orderBy('v.locale')
    .execute();
}

export function findPublishedById(
  db: Executor,
  tenantId: string,
  id: string,
): Promise<VersionWithCode | undefined> {
  return versionsWithCode(db)
    .where('v.tenant_id', '=', tenantId)
    .where('v.id', '=', id)
    .where(isLive('v'))
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
    .where(isLive('v'))
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

/** The statuses of a version on its way to publication: drafts and versions under review. */
export const unpublishedStatuses: readonly VersionStatus[] = ['draft', 'in_review', 'reviewed'];

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
  product_code: string | null;
  product_name: string | null;
  archived_at: string | null;
  /** JSON array of the sensitive data categories it covers; null: none. */
  data_categories: string | null;
  /** How long a consent to it lasts, in months; null: until withdrawn. */
  validity_months: number | null;
  /** Drafts and versions under review. */
  draft_count: number;
}

export async function listTemplateSummaries(
  db: Executor,
  tenantId: string,
  productId?: string,
): Promise<TemplateSummaryRow[]> {
  const latest = db
    .selectFrom('template_versions')
    .select(['template_id', (eb) => eb.fn.max('version').as('version')])
    .where('tenant_id', '=', tenantId)
    .where(isLive())
    .groupBy('template_id')
    .as('latest');
  const drafts = db
    .selectFrom('template_versions')
    .select(['template_id', (eb) => eb.fn.countAll<number | string>().as('count')])
    .where('tenant_id', '=', tenantId)
    .where('status', 'in', unpublishedStatuses)
    .whereRef('id', '=', 'release_id')
    .groupBy('template_id')
    .as('drafts');
  let query = db
    .selectFrom('templates as t')
    .leftJoin('products as p', (join) =>
      join.onRef('p.tenant_id', '=', 't.tenant_id').onRef('p.id', '=', 't.product_id'),
    )
    .leftJoin(latest, 'latest.template_id', 't.id')
    .leftJoin('template_versions as v', (join) =>
      join
        .onRef('v.tenant_id', '=', 't.tenant_id')
        .onRef('v.template_id', '=', 't.id')
        .onRef('v.version', '=', 'latest.version')
        .onRef('v.id', '=', 'v.release_id'),
    )
    .leftJoin(drafts, 'drafts.template_id', 't.id')
    .select([
      't.id',
      't.code',
      't.name',
      't.description',
      't.created_at',
      't.data_categories',
      't.validity_months',
      'v.version as latest_version',
      'v.tag as latest_tag',
      'v.published_at as latest_published_at',
      'v.id as latest_version_id',
      'drafts.count as draft_count',
      'p.code as product_code',
      'p.name as product_name',
      't.archived_at',
    ])
    .where('t.tenant_id', '=', tenantId);
  if (productId !== undefined) query = query.where('t.product_id', '=', productId);
  const rows = await query.orderBy('t.code').execute();
  return rows.map((row) => ({
    ...row,
    latest_version: row.latest_version === null ? null : Number(row.latest_version),
    validity_months: row.validity_months === null ? null : Number(row.validity_months),
    draft_count: Number(row.draft_count ?? 0),
  }));
}

/**
 * A template's releases (each by its own row): drafts and versions under review first (newest
 * first), then published ones, highest first, then rejected ones.
 */
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
    .whereRef('id', '=', 'release_id')
    .orderBy((eb) =>
      eb
        .case()
        .when('status', '=', 'published')
        .then(1)
        .when('status', '=', 'rejected')
        .then(2)
        .else(0)
        .end(),
    )
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

/**
 * Whether a version of the template already carries that tag; a rejected version's tag is free
 * again (the unique index leaves rejected versions out, migration 0018).
 */
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
    .where('status', '<>', 'rejected')
    .executeTakeFirst();
  return clash !== undefined;
}

type VersionChanges = Partial<Omit<TemplateVersionsTable, 'tenant_id' | 'id' | 'template_id'>>;

/** Changes one variant of a release only while the release is still a draft. */
export async function updateDraft(
  db: Executor,
  tenantId: string,
  versionId: string,
  changes: VersionChanges,
): Promise<boolean> {
  const result = await db
    .updateTable('template_versions')
    .set(changes)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', versionId)
    .where('status', '=', 'draft')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) >= 1;
}

/**
 * Changes every variant of a release (its status, number, tag, publication) only while it has
 * status `from`; false when it had moved on.
 */
export async function updateVersionIn(
  db: Executor,
  tenantId: string,
  releaseId: string,
  from: VersionStatus,
  changes: VersionChanges,
): Promise<boolean> {
  const result = await db
    .updateTable('template_versions')
    .set(changes)
    .where('tenant_id', '=', tenantId)
    .where('release_id', '=', releaseId)
    .where('status', '=', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) >= 1;
}

/** A release's variants, its own row first, then by locale. */
export function listVariantsOf(
  db: Executor,
  tenantId: string,
  releaseId: string,
): Promise<TemplateVersionRow[]> {
  return db
    .selectFrom('template_versions')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('release_id', '=', releaseId)
    .orderBy((eb) => eb.case().when('id', '=', releaseId).then(0).else(1).end())
    .orderBy('locale')
    .execute();
}

export async function deleteVariant(db: Executor, tenantId: string, id: string): Promise<void> {
  await db
    .deleteFrom('template_versions')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .whereRef('id', '<>', 'release_id')
    .execute();
}
