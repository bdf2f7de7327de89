import type { Db } from '../platform/db.js';
import { hashPassword, verifyPassword } from '../tenants/index.js';
import { findOperatorByEmail } from './operators.js';
import { findUserForSignIn, findUserRowById, operatorPasswordHash } from './repository.js';
import type { Account, BackofficeUser } from './sessions.js';
import {
  clearFailures,
  secondsUntilAllowed,
  type ThrottleKey,
  type ThrottleLimits,
  throttleKeys,
} from './throttle.js';

export type SignInOutcome =
  | { ok: true; account: Account; email: string; name: string; tenantId: string | null }
  | { ok: false; reason: 'invalid'; tenantId: string | null; keys: ThrottleKey[] }
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
 * Checks an e-mail and password: an operator's account first, then the tenant user with that
 * e-mail (e-mails are unique across the service). A disabled user, operator or tenant, and a user
 * who has not taken their invitation, cannot sign in. One scrypt runs whatever the outcome
 * (against a decoy hash when there is no usable password, at the cost new hashes are made with),
 * so the time taken does not tell which e-mails have accounts.
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
  const user = operator || !email ? undefined : await findUserForSignIn(db, email);
  const stored = operator ? operator.password_hash : user?.password_hash;
  const hash = stored ? stored : await decoyHash(passwordHashCost);
  const matches = (await verifyPassword(input.password, hash)) && Boolean(stored);

  if (matches && operator && operator.status === 'active') {
    await clearFailures(db, `account:${email}`);
    return {
      ok: true,
      account: { kind: 'operator', id: operator.id },
      email,
      name: operator.name,
      tenantId: null,
    };
  }
  if (matches && user && user.status === 'active' && user.tenant_disabled_at === null) {
    await clearFailures(db, `account:${email}`);
    return {
      ok: true,
      account: { kind: 'user', id: user.id },
      email,
      name: user.name,
      tenantId: user.tenant_id,
    };
  }
  return { ok: false, reason: 'invalid', tenantId: user?.tenant_id ?? null, keys };
}

/** The stored password hash of a signed-in user's account. */
export async function passwordHashOf(db: Db, user: BackofficeUser): Promise<string | undefined> {
  if (user.kind === 'operator') return operatorPasswordHash(db, user.operatorId);
  return (await findUserRowById(db, user.userId))?.password_hash ?? undefined;
}
