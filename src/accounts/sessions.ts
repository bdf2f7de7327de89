import { randomBytes } from 'node:crypto';
import type { Db, Executor } from '../platform/db.js';
import { sha256Hex } from '../platform/hashing.js';
import {
  deleteSessionsEndedBefore,
  findSessionOwner,
  findSessionWithAccount,
  insertSession,
  revokeSessionRow,
  revokeSessionRowsOf,
  touchSession,
} from './repository.js';

/** Who is signed in on a request, as the back-office's pages see it. */
export type BackofficeUser =
  | {
      kind: 'tenant';
      sessionIdHash: string;
      email: string;
      tenantId: string;
      tenantAlias: string;
    }
  | { kind: 'operator'; sessionIdHash: string; email: string; operatorId: string };

export type Account = { kind: 'tenant'; id: string } | { kind: 'operator'; id: string };

export interface SessionSettings {
  idleMinutes: number;
  maxHours: number;
}

/** `last_seen_at` is written at most this often, so page views do not each cost a write. */
const lastSeenResolutionMs = 60_000;

/**
 * Starts a session and returns the cookie's value: 256 random bits, of which only a SHA-256 is
 * stored, so a copy of the store does not let anyone in.
 */
export async function startSession(
  db: Executor,
  account: Account,
  email: string,
  client: { ip: string; userAgent: string | null },
  settings: SessionSettings,
  now = new Date(),
): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await insertSession(db, {
    id_hash: sha256Hex(token),
    tenant_id: account.kind === 'tenant' ? account.id : null,
    operator_id: account.kind === 'operator' ? account.id : null,
    email,
    ip: client.ip,
    user_agent: client.userAgent,
    created_at: now.toISOString(),
    last_seen_at: now.toISOString(),
    expires_at: new Date(now.getTime() + settings.maxHours * 3_600_000).toISOString(),
    revoked_at: null,
  });
  return token;
}

/** A session cookie's value has the shape of one made here (256 random bits, base64url). */
function isSessionToken(token: string | undefined): token is string {
  return token !== undefined && /^[A-Za-z0-9_-]{43}$/.test(token);
}

/**
 * The user of a session cookie, or undefined when the session is unknown, revoked, past its
 * end, idle for too long, or its tenant is disabled.
 */
export async function findSession(
  db: Db,
  token: string | undefined,
  settings: SessionSettings,
  now = new Date(),
): Promise<BackofficeUser | undefined> {
  if (!isSessionToken(token)) return undefined;
  const idHash = sha256Hex(token);
  const row = await findSessionWithAccount(db, idHash);
  if (!row || row.revoked_at !== null) return undefined;
  const nowIso = now.toISOString();
  if (row.expires_at <= nowIso) return undefined;
  const idleSince = new Date(now.getTime() - settings.idleMinutes * 60_000).toISOString();
  if (row.last_seen_at <= idleSince) return undefined;
  let user: BackofficeUser | undefined;
  if (row.tenant_id !== null && row.alias !== null && row.disabled_at === null) {
    user = {
      kind: 'tenant',
      sessionIdHash: idHash,
      email: row.email,
      tenantId: row.tenant_id,
      tenantAlias: row.alias,
    };
  } else if (row.operator_id !== null && row.operator_row !== null) {
    user = {
      kind: 'operator',
      sessionIdHash: idHash,
      email: row.email,
      operatorId: row.operator_id,
    };
  }
  if (user && now.getTime() - Date.parse(row.last_seen_at) >= lastSeenResolutionMs) {
    await touchSession(db, idHash, nowIso);
  }
  return user;
}

/**
 * The account of a session cookie whose session was not ended on purpose (signed out, revoked):
 * for a form sent after its session ran out of time, whose text waits for that account to sign in
 * again. Undefined for anything else.
 */
export async function accountOfSession(
  db: Executor,
  token: string | undefined,
): Promise<Account | undefined> {
  if (!isSessionToken(token)) return undefined;
  const row = await findSessionOwner(db, sha256Hex(token));
  if (!row || row.revoked_at !== null) return undefined;
  if (row.tenant_id !== null) return { kind: 'tenant', id: row.tenant_id };
  if (row.operator_id !== null) return { kind: 'operator', id: row.operator_id };
  return undefined;
}

/** Ends one session (sign-out). */
export async function revokeSession(db: Executor, idHash: string): Promise<void> {
  await revokeSessionRow(db, idHash, new Date().toISOString());
}

/**
 * Ends every session of an account (a disabled tenant, a changed password), but the one given;
 * returns how many were ended.
 */
export async function revokeSessionsOf(
  db: Executor,
  account: Account,
  exceptIdHash?: string,
): Promise<number> {
  return revokeSessionRowsOf(
    db,
    { column: account.kind === 'tenant' ? 'tenant_id' : 'operator_id', id: account.id },
    new Date().toISOString(),
    exceptIdHash,
  );
}

/** Deletes sessions that ended more than a day ago; they can no longer be used or shown. */
export async function purgeEndedSessions(db: Executor, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - 86_400_000).toISOString();
  return deleteSessionsEndedBefore(db, cutoff);
}
