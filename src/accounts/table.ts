import type { Selectable } from 'kysely';

/** The service's super-administrator: registers and disables tenants. */
export interface OperatorsTable {
  id: string;
  email: string;
  /** scrypt, in the form of `src/tenants/passwords.ts`. */
  password_hash: string;
  created_at: string;
  updated_at: string;
  /** As the other operators see it; '' for the first one until it is given. */
  name: string;
  /** `invited` until the invitation is taken (its `password_hash` is '' until then). */
  status: 'invited' | 'active' | 'disabled';
  /** The TOTP secret, sealed under the data key; null while two-factor sign-in is off. */
  totp_secret: string | null;
  /** The last time step whose code was accepted: each code works once. */
  totp_last_step: number | null;
  two_factor_since: string | null;
}

/** A person of a tenant's team. E-mails are unique across the service (docs/team.md). */
export interface UsersTable {
  id: string;
  tenant_id: string;
  /** Lower case. */
  email: string;
  name: string;
  /** scrypt, as `src/tenants/passwords.ts` makes it; null until an invitation is taken. */
  password_hash: string | null;
  status: 'invited' | 'active' | 'disabled';
  created_at: string;
  updated_at: string;
  last_sign_in_at: string | null;
  /** As for operators. */
  totp_secret: string | null;
  totp_last_step: number | null;
  two_factor_since: string | null;
}

/** One-time recovery codes of a second factor, as hashes (`recovery-codes.ts`). */
export interface RecoveryCodesTable {
  account_kind: 'user' | 'operator';
  account_id: string;
  code_hash: string;
  used_at: string | null;
}

/**
 * A passkey: a WebAuthn credential of a user or an operator, as its authenticator made it. The
 * private key never leaves the authenticator; this is what checks its signatures.
 */
export interface PasskeysTable {
  id: string;
  account_kind: 'user' | 'operator';
  account_id: string;
  /** The credential's id, base64url, as the browser sends it back at sign-in. */
  credential_id: string;
  /** The COSE public key, base64url. */
  public_key: string;
  /** The authenticator's signature counter (a 64-bit column: PostgreSQL answers it as text). */
  sign_count: number | string;
  /** How the browser may reach it (`internal`, `hybrid`, `usb`, …), space-separated. */
  transports: string;
  /** `multiDevice` for a passkey synced between devices, `singleDevice` for one bound to one. */
  device_type: 'singleDevice' | 'multiDevice';
  backed_up: number;
  /** The authenticator's model (all zeros when it does not say). */
  aaguid: string;
  /** As its owner named it. */
  name: string;
  created_at: string;
  last_used_at: string | null;
}

/** What signing in requires of the holders of a tenant's role (`passkeys.ts`). */
export interface RoleSignInRulesTable {
  tenant_id: string;
  /** A built-in role's code or a tenant role's id, as in `user_roles`. */
  role_id: string;
  requirement: SignInRequirement;
}

/** A second factor of either kind (an authenticator app's code or a passkey), or a passkey. */
export type SignInRequirement = 'second_factor' | 'passkey';

/** A right password waiting for its second factor (`challenges.ts`). */
export interface SignInChallengesTable {
  /** Hex SHA-256 of the challenge cookie's value. */
  id_hash: string;
  account_kind: 'user' | 'operator';
  account_id: string;
  tenant_id: string | null;
  email: string;
  name: string;
  next: string;
  failures: number;
  created_at: string;
  expires_at: string;
}

/** A tenant's own role: a name for a set of permissions. Built-in roles are in `roles.ts`. */
export interface RolesTable {
  id: string;
  tenant_id: string;
  name: string;
  description: string;
  /** Permission codes (`area:action`), space-separated. */
  permissions: string;
  created_at: string;
  updated_at: string;
}

/** Which roles a user holds: a built-in role's code (`admin`, …) or a tenant role's id. */
export interface UserRolesTable {
  user_id: string;
  role_id: string;
}

/**
 * A one-time link to set a password: an invitation, or a reset. Only a SHA-256 of the link's
 * token is kept; a token is used once (`used_at`) and never after `expires_at`.
 */
export interface AccountTokensTable {
  token_hash: string;
  purpose: 'invitation' | 'password_reset';
  account_kind: 'user' | 'operator';
  account_id: string;
  /** Who made it: an e-mail, or `self` for a reset asked for on the sign-in page. */
  created_by: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/**
 * A signed-in browser. Exactly one of `user_id` (with its `tenant_id`) and `operator_id` is set.
 */
export interface BackofficeSessionsTable {
  /** Hex SHA-256 of the session cookie's value; the value itself is never stored. */
  id_hash: string;
  tenant_id: string | null;
  user_id: string | null;
  operator_id: string | null;
  /** Who signed in, as typed (lower case). */
  email: string;
  ip: string;
  user_agent: string | null;
  created_at: string;
  last_seen_at: string;
  /** The session ends then at the latest, however active. */
  expires_at: string;
  revoked_at: string | null;
  /** How it was started (migration 0045): null for a session started before. */
  sign_in_method: SignInMethod | null;
}

/** How a session was started: a password (with a second factor or not), a passkey, or single sign-on. */
export type SignInMethod = 'password' | 'passkey' | 'sso';

/**
 * What one page leaves for the next page of the same session to show once (a new key, a draft
 * kept through signing in again, a confirmation): sealed under a key derived from the session
 * cookie, which the store does not hold; taken (deleted) when read, and useless after `expires_at`.
 */
export interface BackofficeFlashesTable {
  /** Hex SHA-256 of the session cookie's value, as in `backoffice_sessions`. */
  session_id_hash: string;
  name: string;
  sealed: string;
  expires_at: string;
}

/** Failed sign-ins in the current window, per account and per client address. */
export interface SignInThrottleTable {
  key: string;
  failures: number;
  window_started_at: string;
  /** No sign-in is tried for this key before then. */
  blocked_until: string | null;
  updated_at: string;
}

export type OperatorRow = Selectable<OperatorsTable>;
export type UserRow = Selectable<UsersTable>;
export type RoleRow = Selectable<RolesTable>;
export type AccountTokenRow = Selectable<AccountTokensTable>;

declare module '../platform/database.js' {
  /** The tables this folder owns, in the store's one schema (src/platform/database.ts). */
  interface Database {
    operators: OperatorsTable;
    users: UsersTable;
    roles: RolesTable;
    user_roles: UserRolesTable;
    account_tokens: AccountTokensTable;
    recovery_codes: RecoveryCodesTable;
    passkeys: PasskeysTable;
    role_sign_in_rules: RoleSignInRulesTable;
    sign_in_challenges: SignInChallengesTable;
    backoffice_sessions: BackofficeSessionsTable;
    backoffice_flashes: BackofficeFlashesTable;
    sign_in_throttle: SignInThrottleTable;
  }
}

/**
 * Other folders' tables this folder's queries read (joined where one statement answers better
 * than a call to their service); `npm run lint` checks that no query reaches another
 * (scripts/table-owners.mjs).
 */
export type Reads = 'tenants';
