import type { Db, Trx } from '../platform/db.js';
import { validate } from '../platform/validation.js';
import { hashPassword, insertNewTenant, NewTenant, type TenantView } from '../tenants/index.js';
import { addUser } from './users.js';

/** The name of a tenant's first user; an admin can rename it. */
const firstUserName = 'Administrator';

/** A tenant about to be registered: its input checked, its first user's password hashed. */
export interface TenantRegistration {
  alias: string;
  email: string;
  passwordHash: string;
}

/**
 * Checks a tenant's registration (contract section 1: alias, e-mail, password) and hashes the
 * password. The hash is slow on purpose, so it is made before the transaction that registers
 * the tenant, which would hold the store's write lock all that time.
 */
export async function prepareTenantRegistration(
  input: unknown,
  passwordHashCost: number,
): Promise<TenantRegistration> {
  const { alias, email, password } = validate(NewTenant, input);
  return { alias, email, passwordHash: await hashPassword(password, passwordHashCost) };
}

/**
 * Registers a tenant with its first user: that e-mail and password, and the Admin role. The
 * command line and the operator's page both come here. E-mails are unique across every account
 * of the service.
 */
export async function addTenantWithAdmin(
  trx: Trx,
  registration: TenantRegistration,
): Promise<TenantView> {
  const { alias, email, passwordHash } = registration;
  const tenant = await insertNewTenant(trx, { alias, email });
  await addUser(trx, tenant.id, {
    email: tenant.email,
    name: firstUserName,
    roles: ['admin'],
    passwordHash,
  });
  return tenant;
}

/**
 * `prepareTenantRegistration` and `addTenantWithAdmin` in a transaction of its own, for the
 * demo command, which does nothing else in it.
 */
export async function createTenantWithAdmin(
  db: Db,
  input: unknown,
  passwordHashCost: number,
): Promise<TenantView> {
  const registration = await prepareTenantRegistration(input, passwordHashCost);
  return db.transaction().execute((trx) => addTenantWithAdmin(trx, registration));
}
