import type { Db } from '../platform/db.js';
import { validate } from '../platform/validation.js';
import { hashPassword } from '../tenants/passwords.js';
import { NewTenant, type TenantView } from '../tenants/schemas.js';
import { insertNewTenant } from '../tenants/service.js';
import { addUser } from './users.js';

/** The name of a tenant's first user; an admin can rename it. */
const firstUserName = 'Administrator';

/**
 * Registers a tenant (contract section 1: alias, e-mail, password) with its first user: that
 * e-mail and password, and the Admin role. The command line and the operator's page both come
 * here. E-mails are unique across every account of the service.
 */
export async function createTenantWithAdmin(
  db: Db,
  input: unknown,
  passwordHashCost: number,
): Promise<TenantView> {
  const { alias, email, password } = validate(NewTenant, input);
  const passwordHash = await hashPassword(password, passwordHashCost);
  return db.transaction().execute(async (trx) => {
    const tenant = await insertNewTenant(trx, { alias, email });
    await addUser(trx, tenant.id, {
      email: tenant.email,
      name: firstUserName,
      roles: ['admin'],
      passwordHash,
    });
    return tenant;
  });
}
