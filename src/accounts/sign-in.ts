import type { Db } from '../platform/db.js';
import { hashPassword, verifyPassword } from '../tenants/passwords.js';
import { findTenantByEmail } from '../tenants/service.js';
import { findOperatorByEmail } from './operators.js';
import { operatorPasswordHash, tenantPasswordHash } from './repository.js';
import type { Account, BackofficeUser } from './sessions.js';
import {
  clearFailures,
  recordFailure,
  secondsUntilAllowed,
  type ThrottleLimits,
  throttleKeys,
} from './throttle.js';

export type SignInOutcome =
  | { ok: true; account: Account; email: string; tenantId: string | null }
  | { ok: false; reason: 'invalid'; tenantId: string | null }
  | { ok: false; reason: 'throttled'; retryAfterSeconds: number };

const decoys = new Map<number, Promise<string>>();

/**
 * The hash an unknown e-mail's password is checked against, made once per cost (the back-office
 * makes it when the server starts, so that no sign-in pays for it).
 */
export function decoyHash(passwordHashCost: number): Promise<string> {
  let decoy = decoys.get(passwordHashCost);
  if (!decoy) {
    decoy = hashPassword('not the password of anyone', passwordHashCost);
    decoys.set(passwordHashCost, decoy);
  }
  return decoy;
}

/**
 * Checks an e-mail and password: the operator's account first, then the tenant that has that
 * e-mail (contract section 1). A disabled tenant cannot sign in. One scrypt runs whatever the
 * outcome (against a decoy hash for an unknown e-mail, at the cost new hashes are made with), so
 * the time taken does not tell which e-mails have accounts.
 */
export async function checkSignIn(
  db: Db,
  input: { email: string; password: string; ip: string },
  limits: ThrottleLimits,
  passwordHashCost: number,
): Promise<SignInOutcome> {
  const email = input.email.trim().toLowerCase();
  const keys = throttleKeys(email, input.ip, limits);
  const wait = await secondsUntilAllowed(db, keys);
  if (wait > 0) return { ok: false, reason: 'throttled', retryAfterSeconds: wait };

  const operator = email ? await findOperatorByEmail(db, email) : undefined;
  const tenant = operator || !email ? undefined : await findTenantByEmail(db, email);
  const hash =
    operator?.password_hash ?? tenant?.password_hash ?? (await decoyHash(passwordHashCost));
  const matches =
    (await verifyPassword(input.password, hash)) && (operator ?? tenant) !== undefined;

  if (matches && operator) {
    await clearFailures(db, `account:${email}`);
    return { ok: true, account: { kind: 'operator', id: operator.id }, email, tenantId: null };
  }
  if (matches && tenant && tenant.disabled_at === null) {
    await clearFailures(db, `account:${email}`);
    return { ok: true, account: { kind: 'tenant', id: tenant.id }, email, tenantId: tenant.id };
  }
  await recordFailure(db, keys);
  return { ok: false, reason: 'invalid', tenantId: tenant?.id ?? null };
}

/** The stored password hash of a signed-in user's account. */
export async function passwordHashOf(db: Db, user: BackofficeUser): Promise<string | undefined> {
  return user.kind === 'tenant'
    ? tenantPasswordHash(db, user.tenantId)
    : operatorPasswordHash(db, user.operatorId);
}
