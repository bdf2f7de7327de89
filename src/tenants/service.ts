import type { Executor } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/time.js';
import {
  countTenantRows,
  findTenantClash,
  findTenantRowByAlias,
  findTenantRowById,
  findTenantSummary,
  insertTenant,
  listTenantSummaries,
  updateTenantDisabledAt,
  updateTenantSettings,
} from './repository.js';
import type { NewTenant, TenantSummary, TenantView } from './schemas.js';
import type { TenantRow } from './table.js';

/**
 * Inserts a tenant (part of registering one, which also makes its first user: see
 * `src/accounts/registration.ts`): alias and e-mail are unique across the service.
 */
export async function insertNewTenant(
  trx: Executor,
  fields: Pick<NewTenant, 'alias' | 'email'>,
): Promise<TenantView> {
  const { alias } = fields;
  const email = fields.email.toLowerCase();
  const clash = await findTenantClash(trx, alias, email);
  if (clash) {
    const field = clash.alias === alias ? 'alias' : 'email';
    throw new AppError('conflict', { message: `A tenant with this ${field} already exists.` });
  }
  // The tenant's own password is no longer read: its users sign in.
  await insertTenant(trx, {
    id: newId(),
    alias,
    email,
    password_hash: '',
    created_at: nowIso(),
    disabled_at: null,
  });
  const row = await findTenantRowByAlias(trx, alias);
  if (!row) throw new AppError('internal');
  return { id: row.id, alias, email };
}

/** The settings of a tenant's back-office. */
export interface TenantSettings {
  timeZone: string;
  fourEyes: boolean;
  /** Whoever passed a version's review may not approve it too. */
  distinctApprover: boolean;
  twoFactorRequired: boolean;
  /**
   * How a visitor's cookie choice keeps their address: `full`, `truncated` (the network only,
   * the default) or `hashed` (a keyed hash).
   */
  cookieAddress: CookieAddress;
}

/** The ways a cookie choice may keep the visitor's address (`tenants.cookie_address`). */
export const cookieAddressModes = ['full', 'truncated', 'hashed'] as const;
export type CookieAddress = (typeof cookieAddressModes)[number];

export async function getTenantSettings(db: Executor, tenantId: string): Promise<TenantSettings> {
  const row = await findTenantRowById(db, tenantId);
  if (!row) throw new AppError('notFound', { message: 'No such tenant.' });
  return {
    timeZone: row.time_zone,
    fourEyes: row.four_eyes === 1,
    distinctApprover: row.distinct_approver === 1,
    twoFactorRequired: row.two_factor_required === 1,
    cookieAddress: row.cookie_address,
  };
}

export async function setTenantSettings(
  db: Executor,
  tenantId: string,
  settings: TenantSettings,
): Promise<void> {
  await updateTenantSettings(db, tenantId, {
    time_zone: settings.timeZone,
    four_eyes: settings.fourEyes ? 1 : 0,
    distinct_approver: settings.distinctApprover ? 1 : 0,
    two_factor_required: settings.twoFactorRequired ? 1 : 0,
    cookie_address: settings.cookieAddress,
  });
}

/** The tenant with that alias; `404 1004` when there is none. */
export async function getTenantByAlias(db: Executor, alias: string): Promise<TenantRow> {
  const tenant = await findTenantRowByAlias(db, alias);
  if (!tenant) throw new AppError('notFound', { message: `No tenant with alias "${alias}".` });
  return tenant;
}

export function countTenants(db: Executor): Promise<number> {
  return countTenantRows(db);
}

/** Every tenant, by alias, disabled ones included. */
export function listTenants(db: Executor): Promise<TenantSummary[]> {
  return listTenantSummaries(db);
}

/** The tenant with that id; `404 1004` when there is none. */
export async function getTenantById(db: Executor, id: string): Promise<TenantSummary> {
  const tenant = await findTenantSummary(db, id);
  if (!tenant) throw new AppError('notFound', { message: 'No such tenant.' });
  return tenant;
}

/**
 * Disables a tenant (its API keys and sign-ins are refused from the next request on) or enables
 * it again. Disabling twice keeps the first time.
 */
export async function setTenantDisabled(
  db: Executor,
  id: string,
  disabled: boolean,
): Promise<TenantSummary> {
  const tenant = await getTenantById(db, id);
  if (disabled === (tenant.disabled_at !== null)) return tenant;
  const disabledAt = disabled ? nowIso() : null;
  await updateTenantDisabledAt(db, id, disabledAt);
  return { ...tenant, disabled_at: disabledAt };
}
