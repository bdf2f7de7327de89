import type { Executor } from '../platform/db.js';
import { isScheduledRow } from './live.js';
import { versionsWithCode } from './repository.js';
import type { TemplateRow, TemplateVersionRow } from './table.js';

// A template's own life, beside its versions': its details and validity period, its locales,
// archiving and deletion, and the versions scheduled to go live.

export async function updateTemplateDetails(
  db: Executor,
  tenantId: string,
  templateId: string,
  details: Pick<TemplateRow, 'name' | 'product_id' | 'default_locale'>,
): Promise<void> {
  await db
    .updateTable('templates')
    .set(details)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', templateId)
    .execute();
}

/**
 * Sets the template's validity period from `at` on: the template's own column (read with the
 * published version) and its history, for `as-of`.
 */
export async function setTemplateValidity(
  db: Executor,
  tenantId: string,
  templateId: string,
  months: number | null,
  at: string,
): Promise<void> {
  await db
    .updateTable('templates')
    .set({ validity_months: months })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', templateId)
    .execute();
  await db
    .insertInto('template_validity_changes')
    .values({
      tenant_id: tenantId,
      template_id: templateId,
      changed_at: at,
      validity_months: months,
    })
    .onConflict((oc) =>
      oc
        .columns(['tenant_id', 'template_id', 'changed_at'])
        .doUpdateSet({ validity_months: months }),
    )
    .execute();
}

/** The template's validity period in force at `at` (ISO 8601 UTC); null when none was set by then. */
export async function findValidityAsOf(
  db: Executor,
  tenantId: string,
  templateId: string,
  at: string,
): Promise<number | null> {
  const row = await db
    .selectFrom('template_validity_changes')
    .select('validity_months')
    .where('tenant_id', '=', tenantId)
    .where('template_id', '=', templateId)
    .where('changed_at', '<=', at)
    .orderBy('changed_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.validity_months ?? null;
}

/** The locales any version of the template has a text in. */
export async function listLocalesOf(
  db: Executor,
  tenantId: string,
  templateId: string,
): Promise<string[]> {
  const rows = await db
    .selectFrom('template_versions')
    .select('locale')
    .distinct()
    .where('tenant_id', '=', tenantId)
    .where('template_id', '=', templateId)
    .orderBy('locale')
    .execute();
  return rows.map((r) => r.locale);
}

export async function setTemplateArchivedAt(
  db: Executor,
  tenantId: string,
  templateId: string,
  archivedAt: string | null,
): Promise<void> {
  await db
    .updateTable('templates')
    .set({ archived_at: archivedAt })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', templateId)
    .execute();
}

/** Whether any version of the template was ever published. */
export async function anyVersionPublished(
  db: Executor,
  tenantId: string,
  templateId: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('template_versions')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('template_id', '=', templateId)
    .where('status', '=', 'published')
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Deletes a template with its versions, their review steps and content files, and its validity
 * settings; the number of versions.
 */
export async function deleteTemplateRows(
  db: Executor,
  tenantId: string,
  templateId: string,
): Promise<number> {
  for (const table of ['version_reviews', 'content_files'] as const) {
    await db
      .deleteFrom(table)
      .where('tenant_id', '=', tenantId)
      .where('version_id', 'in', (eb) =>
        eb
          .selectFrom('template_versions')
          .select('id')
          .where('tenant_id', '=', tenantId)
          .where('template_id', '=', templateId),
      )
      .execute();
  }
  const versions = await db
    .deleteFrom('template_versions')
    .where('tenant_id', '=', tenantId)
    .where('template_id', '=', templateId)
    .executeTakeFirst();
  await db
    .deleteFrom('template_validity_changes')
    .where('tenant_id', '=', tenantId)
    .where('template_id', '=', templateId)
    .execute();
  await db
    .deleteFrom('templates')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', templateId)
    .execute();
  return Number(versions.numDeletedRows);
}

/** The template's release scheduled to go live later, if it has one (at most one at a time). */
export function findScheduledOf(
  db: Executor,
  tenantId: string,
  templateId: string,
): Promise<TemplateVersionRow | undefined> {
  return db
    .selectFrom('template_versions')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('template_id', '=', templateId)
    .where(isScheduledRow())
    .whereRef('id', '=', 'release_id')
    .executeTakeFirst();
}

/** The tenant's releases scheduled to go live later, soonest first, with their templates. */
export function listScheduledVersions(db: Executor, tenantId: string) {
  return versionsWithCode(db)
    .select('t.name as template_name')
    .where('v.tenant_id', '=', tenantId)
    .where(isScheduledRow('v'))
    .whereRef('v.id', '=', 'v.release_id')
    .orderBy('v.published_at')
    .execute();
}

/** Sets the sensitive data categories a template covers (JSON array; null: none). */
export async function setTemplateDataCategories(
  db: Executor,
  tenantId: string,
  templateId: string,
  categories: string | null,
): Promise<void> {
  await db
    .updateTable('templates')
    .set({ data_categories: categories })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', templateId)
    .execute();
}

/** Sets who may decide for whom on a template (JSON object; null: no rule). */
export async function setTemplateRepresentation(
  db: Executor,
  tenantId: string,
  templateId: string,
  rule: string | null,
): Promise<void> {
  await db
    .updateTable('templates')
    .set({ representation: rule })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', templateId)
    .execute();
}
