import { type Static, Type } from 'typebox';
import type { Db, Trx } from '../platform/db.js';
import { validate } from '../platform/validation.js';
import { hashPassword, insertNewTenant, NewTenant, type TenantView } from '../tenants/index.js';
import { issueLink } from './links.js';
import { addUser, type TeamMember } from './users.js';

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

/**
 * A tenant registered with its first admin invited: the alias, and the admin's name and e-mail.
 * No password: the admin sets their own from the invitation, as every team member does.
 */
export const TenantInvitation = Type.Object(
  {
    alias: NewTenant.properties.alias,
    name: Type.String({ minLength: 1, maxLength: 100 }),
    email: NewTenant.properties.email,
  },
  { additionalProperties: false },
);
export type TenantInvitation = Static<typeof TenantInvitation>;

/**
 * Registers a tenant with its first user invited: that name and e-mail, the Admin role, no
 * password yet, and the one-time invitation link (72 hours) with which they set one. Answers
 * the link's token for the caller to e-mail or show; the rows are written in the caller's
 * transaction.
 */
export async function addTenantWithInvitedAdmin(
  trx: Trx,
  input: unknown,
  invitedBy: string,
): Promise<{ tenant: TenantView; admin: TeamMember; token: string }> {
  const { alias, name, email } = validate(TenantInvitation, input);
  const tenant = await insertNewTenant(trx, { alias, email });
  const admin = await addUser(trx, tenant.id, { email: tenant.email, name, roles: ['admin'] });
  const token = await issueLink(
    trx,
    { purpose: 'invitation', kind: 'user', accountId: admin.id },
    invitedBy,
  );
  return { tenant, admin, token };
}
