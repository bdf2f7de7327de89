/**
 * The sessions an account has open, as its holder and a tenant's admin see them (docs/team.md,
 * "Sessions"): the device (its browser's user agent), the address, how it was started and when
 * it was last seen; ending one, or all of them, is audited.
 */
import { type Actor, recordAudit } from '../audit-trail/index.js';
import type { Executor, Trx } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import type { Account, SessionSettings } from './sessions.js';
import { revokeSessionsOf } from './sessions.js';
import { findLiveSessionsOf, findSessionMethod, revokeSessionRowOf } from './sign-in-repository.js';
import type { SignInMethod } from './table.js';
import { getTeamMember } from './users.js';

export interface OpenSession {
  /** The session's handle in pages: the SHA-256 of its cookie, never the cookie itself. */
  id: string;
  ip: string;
  userAgent: string | null;
  /** Null for a session started before the method was recorded. */
  method: SignInMethod | null;
  startedAt: string;
  lastSeenAt: string;
}

const ownerOf = (account: Account) =>
  ({
    column: account.kind === 'user' ? 'user_id' : 'operator_id',
    id: account.id,
  }) as const;

/** The account's sessions still open (neither ended, nor idle past the limit), newest first. */
export async function openSessions(
  db: Executor,
  account: Account,
  settings: SessionSettings,
  now = new Date(),
): Promise<OpenSession[]> {
  const idleSince = new Date(now.getTime() - settings.idleMinutes * 60_000).toISOString();
  const rows = await findLiveSessionsOf(db, ownerOf(account), now.toISOString());
  return rows
    .filter((row) => row.last_seen_at > idleSince)
    .map((row) => ({
      id: row.id_hash,
      ip: row.ip,
      userAgent: row.user_agent,
      method: row.sign_in_method,
      startedAt: row.created_at,
      lastSeenAt: row.last_seen_at,
    }));
}

/** Ends one of the account's own sessions (`404 1004` for one it does not have open). */
export async function endOwnSession(
  trx: Trx,
  account: Account,
  sessionId: string,
  actor: Actor,
): Promise<void> {
  const ended = await revokeSessionRowOf(
    trx,
    ownerOf(account),
    sessionId,
    new Date().toISOString(),
  );
  if (!ended) throw new AppError('notFound', { message: 'No such session is open.' });
  await recordAudit(trx, {
    ...actor,
    action: 'session.ended',
    details: { session: sessionId.slice(0, 12) },
  });
}

/** An admin's "sign out everywhere" for a user of their tenant: every session of theirs ends. */
export async function endSessionsOfUser(
  trx: Trx,
  actor: Actor,
  tenantId: string,
  userId: string,
): Promise<number> {
  const user = await getTeamMember(trx, tenantId, userId);
  const ended = await revokeSessionsOf(trx, { kind: 'user', id: userId });
  await recordAudit(trx, {
    ...actor,
    tenantId,
    action: 'user.signed_out',
    target: user.email,
    details: { user_id: userId, sessions_ended: ended },
  });
  return ended;
}

/** How a session was started: null for one started before that was kept, or none. */
export async function sessionMethod(db: Executor, sessionId: string): Promise<SignInMethod | null> {
  return (await findSessionMethod(db, sessionId)) ?? null;
}
