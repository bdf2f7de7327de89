import type { Insertable } from 'kysely';
import type { Executor } from '../platform/db.js';
import type { TenantSummary } from './schemas.js';
import type { TenantRow, TenantsTable } from './table.js';

/** The tenant holding this alias or this e-mail, if any (both are unique across the service). */
export function findTenantClash(
  db: Executor,
  alias: string,
  email: string,
): Promise<{ alias: string; email: string } | undefined> {
  return db
    .selectFrom('tenants')
    .select(['alias', 'email'])
    .where((eb) => eb.or([eb('alias', '=', alias), eb('email', '=', email)]))
    .executeTakeFirst();
}

export async function insertTenant(db: Executor, row: Insertable<TenantsTable>): Promise<void> {
  await db.insertInto('tenants').values(row).execute();
}

export function findTenantRowByAlias(db: Executor, alias: string): Promise<TenantRow | undefined> {
  return db.selectFrom('tenants').selectAll().where('alias', '=', alias).executeTakeFirst();
}

export async function countTenantRows(db: Executor): Promise<number> {
  const { count } = await db
    .selectFrom('tenants')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(count);
}

export function listTenantSummaries(db: Executor): Promise<TenantSummary[]> {
  return db
    .selectFrom('tenants')
    .select(['id', 'alias', 'email', 'created_at', 'disabled_at'])
    .orderBy('alias')
    .execute();
}

export function findTenantSummary(db: Executor, id: string): Promise<TenantSummary | undefined> {
  return db
    .selectFrom('tenants')
    .select(['id', 'alias', 'email', 'created_at', 'disabled_at'])
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function updateTenantDisabledAt(
  db: Executor,
  id: string,
  disabledAt: string | null,
): Promise<void> {
  await db.updateTable('tenants').set({ disabled_at: disabledAt }).where('id', '=', id).execute();
}

/** Sets the hash; false when no tenant has that id. */
export function findTenantRowById(db: Executor, id: string): Promise<TenantRow | undefined> {
  return db.selectFrom('tenants').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateTenantSettings(
  db: Executor,
  id: string,
  values: Pick<
    TenantRow,
    'time_zone' | 'four_eyes' | 'distinct_approver' | 'two_factor_required' | 'cookie_address'
  >,
): Promise<void> {
  await db.updateTable('tenants').set(values).where('id', '=', id).execute();
}
