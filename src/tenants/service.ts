import type { Db, Executor } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/time.js';
import { validate } from '../platform/validation.js';
import { hashPassword } from './passwords.js';
import {
  countTenantRows,
  findTenantClash,
  findTenantRowByAlias,
  findTenantRowByEmail,
  findTenantSummary,
  insertTenant,
  listTenantSummaries,
  updateTenantDisabledAt,
  updateTenantPasswordHash,
} from './repository.js';
import { NewTenant, Password, type TenantSummary, type TenantView } from './schemas.js';
import type { TenantRow } from './table.js';

/**
 * Registers a tenant (the operator's act): alias and e-mail are unique across the service. The
 * password is hashed at `passwordHashCost` (`Config.passwordHashCost`).
 */
export async function createTenant(
  db: Db,
  input: unknown,
  passwordHashCost: number,
): Promise<TenantView> {
  const { alias, email, password } = validate(NewTenant, input);
  const normalizedEmail = email.toLowerCase();
  const passwordHash = await hashPassword(password, passwordHashCost);
  return db.transaction().execute(async (trx) => {
    const clash = await findTenantClash(trx, alias, normalizedEmail);
    if (clash) {
      const field = clash.alias === alias ? 'alias' : 'email';
      throw new AppError('conflict', { message: `A tenant with this ${field} already exists.` });
    }
    const row = {
      id: newId(),
      alias,
      email: normalizedEmail,
      password_hash: passwordHash,
      created_at: nowIso(),
      disabled_at: null,
    };
    await insertTenant(trx, row);
    return { id: row.id, alias, email: normalizedEmail };
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

/** The tenant whose users sign in with this e-mail (compared in lower case), if any. */
export function findTenantByEmail(db: Executor, email: string): Promise<TenantRow | undefined> {
  return findTenantRowByEmail(db, email.toLowerCase());
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

/** Sets a tenant's sign-in password (at least 10 characters). */
export async function setTenantPassword(
  db: Executor,
  id: string,
  password: unknown,
  passwordHashCost: number,
): Promise<void> {
  const valid = validate(Password, password);
  const passwordHash = await hashPassword(valid, passwordHashCost);
  if (!(await updateTenantPasswordHash(db, id, passwordHash))) {
    throw new AppError('notFound', { message: 'No such tenant.' });
  }
}
