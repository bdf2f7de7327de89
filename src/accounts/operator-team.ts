import { type Actor, recordAudit } from '../audit-trail/index.js';
import type { Executor, Trx } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/time.js';
import { issueLink, retireLinks } from './links.js';
import {
  countActiveOperators,
  findOperatorRowById,
  insertOperatorRow,
  listOperatorRows,
  updateOperator,
} from './repository.js';
import { revokeSessionsOf } from './sessions.js';
import { refuseTakenEmail } from './users.js';

/**
 * The service's operators as a team: the first is made from `OPERATOR_EMAIL` at start; an
 * operator invites others (a one-time link to set their password, as for users), disables and
 * enables them. The service always keeps an active operator.
 */
export interface OperatorMember {
  id: string;
  email: string;
  name: string;
  status: 'invited' | 'active' | 'disabled';
  createdAt: string;
  twoFactor: boolean;
}

export async function listOperators(db: Executor): Promise<OperatorMember[]> {
  return (await listOperatorRows(db)).map((row) => ({
    id: row.id,
    email: row.email,
    name: row.name,
    status: row.status,
    createdAt: row.created_at,
    twoFactor: row.two_factor_since !== null,
  }));
}

async function getOperator(db: Executor, id: string) {
  const row = await findOperatorRowById(db, id);
  if (!row) throw new AppError('notFound', { message: 'No such operator.' });
  return row;
}

/** Invites an operator: an `invited` account without a password, and its one-time link. */
export async function inviteOperator(
  trx: Trx,
  actor: Actor,
  fields: { email: string; name: string },
): Promise<{ operator: OperatorMember; token: string }> {
  const email = fields.email.toLowerCase();
  await refuseTakenEmail(trx, email);
  const now = nowIso();
  const id = newId();
  await insertOperatorRow(trx, {
    id,
    email,
    name: fields.name,
    // No password until the invitation is taken: nothing verifies against an empty hash.
    password_hash: '',
    status: 'invited',
    created_at: now,
    updated_at: now,
    totp_secret: null,
    totp_last_step: null,
    two_factor_since: null,
  });
  const token = await issueLink(
    trx,
    { purpose: 'invitation', kind: 'operator', accountId: id },
    actor.actor,
  );
  await recordAudit(trx, {
    ...actor,
    tenantId: null,
    action: 'operator.invited',
    target: email,
    details: { operator_id: id, name: fields.name },
  });
  return {
    operator: { id, email, name: fields.name, status: 'invited', createdAt: now, twoFactor: false },
    token,
  };
}

/** Disables another operator (their sessions end at once) or enables one again. */
export async function setOperatorDisabled(
  trx: Trx,
  actor: Actor & { operatorId: string },
  id: string,
  disabled: boolean,
): Promise<void> {
  const row = await getOperator(trx, id);
  if (id === actor.operatorId) {
    throw new AppError('conflict', { message: 'An operator cannot disable themselves.' });
  }
  if (row.status === 'invited') {
    throw new AppError('conflict', {
      message: 'This operator has not taken their invitation yet.',
    });
  }
  const status = disabled ? 'disabled' : 'active';
  if (row.status === status) return;
  await updateOperator(trx, id, { status, updated_at: nowIso() });
  if (disabled && (await countActiveOperators(trx)) === 0) {
    throw new AppError('conflict', { message: 'The service would have no active operator left.' });
  }
  const sessions = disabled ? await revokeSessionsOf(trx, { kind: 'operator', id }) : 0;
  if (disabled) await retireLinks(trx, 'operator', id);
  await recordAudit(trx, {
    ...actor,
    tenantId: null,
    action: disabled ? 'operator.disabled' : 'operator.enabled',
    target: row.email,
    details: { operator_id: id, ...(disabled ? { sessions_ended: sessions } : {}) },
  });
}
