import type { Executor } from '../platform/db.js';
import type { TemplateRow, TemplateVersionRow } from './table.js';

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
