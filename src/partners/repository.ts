import type { Executor } from '../platform/db.js';
import type { PartnerRow, PartnersTable } from './table.js';

/** A partner with the number of releases that list it, for lists. */
export type PartnerSummaryRow = PartnerRow & { release_count: number };

export async function listPartnerRows(
  db: Executor,
  tenantId: string,
): Promise<PartnerSummaryRow[]> {
  const counts = db
    .selectFrom('version_partners')
    .select(['partner_code', (eb) => eb.fn.countAll<number | string>().as('count')])
    .where('tenant_id', '=', tenantId)
    .groupBy('partner_code')
    .as('counts');
  const rows = await db
    .selectFrom('partners as p')
    .leftJoin(counts, 'counts.partner_code', 'p.code')
    .selectAll('p')
    .select('counts.count as release_count')
    .where('p.tenant_id', '=', tenantId)
    .orderBy('p.code')
    .execute();
  return rows.map((row) => ({ ...row, release_count: Number(row.release_count ?? 0) }));
}

export function findPartnerByCode(
  db: Executor,
  tenantId: string,
  code: string,
): Promise<PartnerRow | undefined> {
  return db
    .selectFrom('partners')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('code', '=', code)
    .executeTakeFirst();
}

/** Inserts the partner unless the tenant has one of that code; true when it was inserted. */
export async function insertPartner(db: Executor, row: PartnerRow): Promise<boolean> {
  const result = await db
    .insertInto('partners')
    .values(row)
    .onConflict((oc) => oc.columns(['tenant_id', 'code']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

export async function updatePartner(
  db: Executor,
  tenantId: string,
  id: string,
  changes: Partial<Omit<PartnersTable, 'tenant_id' | 'id' | 'code' | 'created_at'>>,
): Promise<void> {
  await db
    .updateTable('partners')
    .set(changes)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute();
}

export async function deletePartnerRow(db: Executor, tenantId: string, id: string): Promise<void> {
  await db.deleteFrom('partners').where('tenant_id', '=', tenantId).where('id', '=', id).execute();
}

/** Whether any release of the tenant lists the partner. */
export async function partnerIsListed(
  db: Executor,
  tenantId: string,
  code: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('version_partners')
    .select('release_id')
    .where('tenant_id', '=', tenantId)
    .where('partner_code', '=', code)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** The partners each of these releases lists, by code, with their names. */
export async function findReleasePartners(
  db: Executor,
  tenantId: string,
  releaseIds: readonly string[],
): Promise<Array<{ release_id: string; code: string; name: string }>> {
  if (releaseIds.length === 0) return [];
  return db
    .selectFrom('version_partners as vp')
    .innerJoin('partners as p', (j) =>
      j.onRef('p.tenant_id', '=', 'vp.tenant_id').onRef('p.code', '=', 'vp.partner_code'),
    )
    .select(['vp.release_id', 'p.code', 'p.name'])
    .where('vp.tenant_id', '=', tenantId)
    .where('vp.release_id', 'in', releaseIds)
    .orderBy('vp.release_id')
    .orderBy('p.code')
    .execute();
}

export async function replaceReleasePartners(
  db: Executor,
  tenantId: string,
  releaseId: string,
  codes: readonly string[],
  now: string,
): Promise<void> {
  await db
    .deleteFrom('version_partners')
    .where('tenant_id', '=', tenantId)
    .where('release_id', '=', releaseId)
    .execute();
  if (codes.length === 0) return;
  await db
    .insertInto('version_partners')
    .values(
      codes.map((partner_code) => ({
        tenant_id: tenantId,
        release_id: releaseId,
        partner_code,
        created_at: now,
      })),
    )
    .execute();
}

/** How many releases of the tenant list the partner. */
export async function countReleasesListing(
  db: Executor,
  tenantId: string,
  code: string,
): Promise<number> {
  const row = await db
    .selectFrom('version_partners')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('tenant_id', '=', tenantId)
    .where('partner_code', '=', code)
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

export async function deleteReleasePartners(
  db: Executor,
  tenantId: string,
  releaseIds: readonly string[],
): Promise<void> {
  if (releaseIds.length === 0) return;
  await db
    .deleteFrom('version_partners')
    .where('tenant_id', '=', tenantId)
    .where('release_id', 'in', releaseIds)
    .execute();
}
