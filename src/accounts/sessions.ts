import { randomBytes } from 'node:crypto';
import type { Db, Executor } from '../platform/db.js';
import { sha256Hex } from '../platform/hashing.js';
import type { Permission } from './permissions.js';
import { permissionsOfRoles, rolesOfUsers } from './roles.js';
import {
  deleteSessionsEndedBefore,
  findSessionOwner,
  findSessionWithAccount,
  insertSession,
  revokeSessionRow,
  revokeSessionRowsOf,
  touchSession,
} from './sign-in-repository.js';
import { signInRequirementOf } from './sign-in-rules.js';
import type { SignInMethod, SignInRequirement } from './table.js';

/** Who is signed in on a request, as the back-office's pages see it. */
export type BackofficeUser =
  | {
      kind: 'tenant';
      sessionIdHash: string;
      userId: string;
      email: string;
      name: string;
      tenantId: string;
      tenantAlias: string;
      /** What the user's roles allow, read on every request (a change counts at once). */
      permissions: ReadonlySet<Permission>;
      /** The tenant's display time zone (IANA). */
      timeZone: string;
      /** Whether the user has an authenticator app's second factor, and a passkey. */
      twoFactor: boolean;
      passkey: boolean;
      /** What their roles (and the tenant) require of their sign-in (`sign-in-rules.ts`). */
      signInRequirement: SignInRequirement | null;
      /** How this session was started (null: before that was recorded). */
      signInMethod: SignInMethod | null;
    }
  | {
      kind: 'operator';
      sessionIdHash: string;
      email: string;
      name: string;
      operatorId: string;
      twoFactor: boolean;
      passkey: boolean;
    };

/** Whose session: a tenant's user, or an operator. */
export type Account = { kind: 'user'; id: string } | { kind: 'operator'; id: string };

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
  tenantId: string | null,
  email: string,
  client: { ip: string; userAgent: string | null },
  settings: SessionSettings,
  method: SignInMethod = 'password',
  now = new Date(),
): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await insertSession(db, {
    id_hash: sha256Hex(token),
    tenant_id: tenantId,
    user_id: account.kind === 'user' ? account.id : null,
    operator_id: account.kind === 'operator' ? account.id : null,
    email,
    ip: client.ip,
    user_agent: client.userAgent,
    created_at: now.toISOString(),
    last_seen_at: now.toISOString(),
    expires_at: new Date(now.getTime() + settings.maxHours * 3_600_000).toISOString(),
    revoked_at: null,
    sign_in_method: method,
  });
  return token;
}

/** A session cookie's value has the shape of one made here (256 random bits, base64url). */
function isSessionToken(token: string | undefined): token is string {
  return token !== undefined && /^[A-Za-z0-9_-]{43}$/.test(token);
}

/**
 * The user of a session cookie, or undefined when the session is unknown, revoked, past its
 * end, idle for too long, or its user, operator or tenant is disabled or gone.
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
  if (
    row.user_id !== null &&
    row.user_status === 'active' &&
    row.tenant_id !== null &&
    row.alias !== null &&
    row.disabled_at === null
  ) {
    const roles = (await rolesOfUsers(db, [row.user_id])).get(row.user_id) ?? [];
    user = {
      kind: 'tenant',
      sessionIdHash: idHash,
      userId: row.user_id,
      email: row.user_email ?? '',
      name: row.user_name ?? '',
      tenantId: row.tenant_id,
      tenantAlias: row.alias,
      permissions: await permissionsOfRoles(db, row.tenant_id, roles),
      timeZone: row.time_zone ?? 'UTC',
      twoFactor: row.user_two_factor !== null,
      passkey: Boolean(row.has_passkey),
      signInRequirement: await signInRequirementOf(
        db,
        row.tenant_id,
        roles,
        row.two_factor_required === 1,
      ),
      signInMethod: row.sign_in_method,
    };
  } else if (
    row.operator_id !== null &&
    row.operator_row !== null &&
    row.operator_status === 'active'
  ) {
    user = {
      kind: 'operator',
      sessionIdHash: idHash,
      email: row.operator_email ?? '',
      name: row.operator_name ?? '',
      operatorId: row.operator_id,
      twoFactor: row.operator_two_factor !== null,
      passkey: Boolean(row.has_passkey),
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
  if (row.user_id !== null) return { kind: 'user', id: row.user_id };
  if (row.operator_id !== null) return { kind: 'operator', id: row.operator_id };
  return undefined;
}

/** Ends one session (sign-out). */
export async function revokeSession(db: Executor, idHash: string): Promise<void> {
  await revokeSessionRow(db, idHash, new Date().toISOString());
}

/**
 * Ends every session of an account (a disabled user, a changed password) or of a whole tenant
 * (disabled), but the one given; returns how many were ended.
 */
export async function revokeSessionsOf(
  db: Executor,
  account: Account | { kind: 'tenant'; id: string },
  exceptIdHash?: string,
): Promise<number> {
  const column = ({ tenant: 'tenant_id', user: 'user_id', operator: 'operator_id' } as const)[
    account.kind
  ];
  return revokeSessionRowsOf(
    db,
    { column, id: account.id },
    new Date().toISOString(),
    exceptIdHash,
  );
}

/** Deletes sessions that ended more than a day ago; they can no longer be used or shown. */
export async function purgeEndedSessions(db: Executor, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - 86_400_000).toISOString();
  return deleteSessionsEndedBefore(db, cutoff);
}
