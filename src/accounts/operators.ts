import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../platform/config.js';
import type { Db, Executor, Trx } from '../platform/db.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/time.js';
import { validate } from '../platform/validation.js';
import { hashPassword, Password, verifyPassword } from '../tenants/index.js';
import {
  anyOperatorExists,
  findOperatorRowByEmail,
  insertOperatorRow,
  updateOperatorPasswordHash,
} from './repository.js';
import { revokeSessionsOf } from './sessions.js';
import type { OperatorRow } from './table.js';

export function findOperatorByEmail(db: Executor, email: string): Promise<OperatorRow | undefined> {
  return findOperatorRowByEmail(db, email);
}

/**
 * Makes sure the operator's account exists, at server start:
 * - with `OPERATOR_PASSWORD`, the account of `OPERATOR_EMAIL` has that password (created, or its
 *   password replaced and its sessions ended when it changed);
 * - without, when no operator exists yet, one is created for `OPERATOR_EMAIL` with a random
 *   password, logged once (at `warn`, so that it shows at the usual log levels).
 * Instances starting together create it once: the e-mail is unique, and the loser of the race
 * keeps the winner's account (and logs nothing).
 */
export async function ensureOperator(
  db: Db,
  config: Pick<Config, 'operatorEmail' | 'operatorPassword' | 'passwordHashCost'>,
  log: FastifyBaseLogger,
): Promise<void> {
  const email = config.operatorEmail;
  const cost = config.passwordHashCost;
  const existing = await findOperatorByEmail(db, email);
  if (config.operatorPassword !== undefined) {
    if (!existing) {
      await insertOperator(db, email, config.operatorPassword, cost);
      log.info({ email }, 'back-office operator account created from OPERATOR_PASSWORD');
    } else if (!(await verifyPassword(config.operatorPassword, existing.password_hash))) {
      // Start-up is this change's edge: the slow hash first, then the writes in one transaction.
      const hash = await hashPassword(validate(Password, config.operatorPassword), cost);
      await db.transaction().execute((trx) => setOperatorPasswordHash(trx, existing.id, hash));
      log.info({ email }, 'back-office operator password set from OPERATOR_PASSWORD');
    }
    return;
  }
  if (existing) return;
  if (await anyOperatorExists(db)) return;
  const password = randomBytes(15).toString('base64url');
  if (await insertOperator(db, email, password, cost)) {
    log.warn(
      `Back-office operator account created: sign in at /backoffice with ${email} and the ` +
        `password ${password} (shown this once; change it after signing in, or set ` +
        'OPERATOR_PASSWORD).',
    );
  }
}

/** Inserts the operator unless the e-mail is already taken; true when this call inserted it. */
async function insertOperator(
  db: Db,
  email: string,
  password: string,
  passwordHashCost: number,
): Promise<boolean> {
  const now = nowIso();
  return insertOperatorRow(db, {
    id: newId(),
    email,
    password_hash: await hashPassword(password, passwordHashCost),
    created_at: now,
    updated_at: now,
    name: '',
    status: 'active',
    totp_secret: null,
    totp_last_step: null,
    two_factor_since: null,
  });
}

/** Sets the operator's password (hashed already) and ends the operator's other sessions. */
export async function setOperatorPasswordHash(
  trx: Trx,
  id: string,
  passwordHash: string,
  keepSessionIdHash?: string,
): Promise<void> {
  await updateOperatorPasswordHash(trx, id, passwordHash, nowIso());
  await revokeSessionsOf(trx, { kind: 'operator', id }, keepSessionIdHash);
}
